// SPDX-License-Identifier: BSD-3-Clause
// Injected by test_page_labels.py into a copy of index.html (never shipped): after load, lists
// every element of a detail panel that ends beyond the window or whose text is cut, and where the
// panels are, as JSON in a pre element (id layout-probe) for --dump-dom.
window.addEventListener('load',()=>setTimeout(()=>{const W=document.documentElement.clientWidth,bad=[];
const name=e=>e.tagName+'.'+(e.getAttribute('class')||'')+(e.dataset&&e.dataset.metric?'['+e.dataset.metric+']':'');
for(const e of document.querySelectorAll('.detail,.detail *')){const r=e.getBoundingClientRect();if(r.width&&r.right>W+1)bad.push(name(e)+' ends at '+Math.round(r.right)+' > '+W)}
for(const e of document.querySelectorAll('.detail h2,.detail h3,.detail .notes,.detail li,.detail .key,#side h2,#side summary'))if(e.scrollWidth>e.clientWidth+1)bad.push(name(e)+' cut: '+e.scrollWidth+' > '+e.clientWidth);
const m=document.getElementById('main');if(m.scrollWidth>m.clientWidth+1)bad.push('#main scrolls sideways');if(document.documentElement.scrollWidth>W+1)bad.push('page scrolls sideways');
const d=[...document.querySelectorAll('.detail')].map(e=>{const r=e.getBoundingClientRect();return[Math.round(r.left),Math.round(r.top),Math.round(r.right)]});
const p=document.createElement('pre');p.id='layout-probe';p.textContent=JSON.stringify({width:W,bad:bad,details:d});document.body.append(p)},0));
