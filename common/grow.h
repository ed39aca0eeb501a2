/* SPDX-License-Identifier: BSD-3-Clause */
/* Growing an array one element at a time (capacity doubled as needed). */
#ifndef SCAL_GROW_H
#define SCAL_GROW_H

#include <stddef.h>

/* Makes room in *v (*cap elements of `size` bytes, n of them in use) for one more: doubles the
 * capacity, from `first` when there is none yet. SCAL_OK, or SCAL_ENOMEM with *v and *cap as they
 * were (the caller says what it was doing). */
int scal_grow(void **v, size_t *cap, size_t n, size_t size, size_t first);

#endif
