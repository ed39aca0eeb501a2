// SPDX-License-Identifier: BSD-3-Clause
// A program that uses HDF5 itself (the same library instance as the tool) and finishes its own file
// in an atexit handler: both its file and scal's run file must come out intact.
//   uses_hdf5 OUTPUT.h5
// Expectations: see tests/tool/README.md.
//
// RUN[program_uses_hdf5]: %prog own.h5
// REGION: parallel nodes=1
// CHECK own.h5:/total: values=499500
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static hid_t file = -1;
static long total;

static void write_at_exit(void)
{
    hsize_t one = 1;
    hid_t space = H5Screate_simple(1, &one, NULL);
    hid_t dset =
        H5Dcreate2(file, "total", H5T_NATIVE_LONG, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w =
        dset >= 0 ? H5Dwrite(dset, H5T_NATIVE_LONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &total) : -1;
    if (dset >= 0) H5Dclose(dset);
    H5Sclose(space);
    if (w < 0 || H5Fclose(file) < 0) {
        fprintf(stderr, "uses_hdf5: could not finish its own file\n");
        _exit(5);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) return 3;
    atexit(write_at_exit);
#pragma omp parallel for reduction(+ : total)
    for (long i = 0; i < 1000; i++)
        total += i;
    printf("uses_hdf5: %ld\n", total);
    return 0;
}
