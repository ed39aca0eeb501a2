/* SPDX-License-Identifier: BSD-3-Clause */
/* The description of one member of a compound table (name, storage type, offset in the C row), free
 * of HDF5 headers so that the tool's hot path can include the row layouts without HDF5. */
#ifndef SCAL_TABLE_FIELD_H
#define SCAL_TABLE_FIELD_H

#include <stddef.h>

enum scal_h5_ftype { SCAL_H5_U8, SCAL_H5_I32, SCAL_H5_U32, SCAL_H5_I64, SCAL_H5_U64, SCAL_H5_F64 };

/* One member of a compound table: its HDF5 name, type, and offset in the C struct. */
struct scal_h5_field {
    const char *name;
    enum scal_h5_ftype type;
    size_t offset;
};
#define SCAL_H5_FIELD(type_tag, struct_type, member)                                               \
    {                                                                                              \
#member, type_tag, offsetof(struct_type, member)                                           \
    }

#endif
