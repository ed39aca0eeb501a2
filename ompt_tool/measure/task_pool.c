// SPDX-License-Identifier: BSD-3-Clause
// Records of explicit tasks (struct scal_task, tool.h): each thread has a fixed pool, reserved with
// its state. Hot path: no lock, no allocation, no printing.
//
// A task is created on one thread and may complete on another (the team runs it; untied tasks
// migrate). The completing thread gives the record back to the pool it came from: to its own free
// list when that is its own pool, else onto the owner's remote stack, which the owner takes whole
// (an exchange, so the pushes' compare-and-swap never meets a popped-and-reused head: no ABA).
#include "tool.h"

struct scal_task *scal_task_get(struct scal_thread *t)
{
    struct scal_task *k = t->task_free;
    if (__builtin_expect(k == NULL, 0)) {
        k = atomic_exchange_explicit(&t->task_remote, NULL, memory_order_acquire);
        if (k == NULL) {
            if (t->task_records_used >= SCAL_TASK_RECORDS) return NULL;
            k = &t->task_records[t->task_records_used++];
            k->home = t;
            return k;
        }
    }
    t->task_free = k->next;
    return k;
}

void scal_task_put(struct scal_thread *t, struct scal_task *k)
{
    struct scal_thread *home = k->home;
    if (home == t) {
        k->next = t->task_free;
        t->task_free = k;
        return;
    }
    struct scal_task *head = atomic_load_explicit(&home->task_remote, memory_order_relaxed);
    do {
        k->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&home->task_remote, &head, k,
                                                    memory_order_release, memory_order_relaxed));
}
