/* SPDX-License-Identifier: BSD-3-Clause */
/* A region's model as HDF5 tables: group loc/model with the pieces (one model in n and p, or one
 * per input), their terms, expressions and families, and the predictions at the measured and at
 * predicted configurations (schemas/README-analysis.md). */
#ifndef SCAL_MODEL_H5MODEL_H
#define SCAL_MODEL_H5MODEL_H

#include <hdf5.h>

#include "region.h"

int scal_model_h5_write(hid_t loc, const struct scal_pp_host *h, const struct scal_region_model *rm,
                        const double *sizes);

#endif
