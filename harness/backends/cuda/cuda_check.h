/* harness/backends/nocuda.check.h: one checking macro per GPU library. Each failure names the call, file:line,
 * the process's role (rank) and host (through gl_log) and the library's own error string. */
#ifndef GAUNTLET_CUDA_CHECK_H
#define GAUNTLET_CUDA_CHECK_H

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "util.h"

/* Each macro evaluates call once; on failure it logs and evaluates to -1, else 0. */
#define CUDA_CHECK(call)                                                                       \
    __extension__({                                                                            \
        cudaError_t e_ = (call);                                                               \
        e_ == cudaSuccess ? 0                                                                  \
                          : (gl_log("%s failed%s: %s (%s)", #call, gl_where(__FILE__, __LINE__),  \
                                    cudaGetErrorString(e_), cudaGetErrorName(e_)),             \
                             -1);                                                              \
    })

#define CUBLAS_CHECK(call)                                                                     \
    __extension__({                                                                            \
        cublasStatus_t s_ = (call);                                                            \
        s_ == CUBLAS_STATUS_SUCCESS ? 0                                                        \
                                    : (gl_log("%s failed%s: %s (%s)", #call,                   \
                                              gl_where(__FILE__, __LINE__), cublasLtGetStatusString(s_),           \
                                              cublasLtGetStatusName(s_)),                      \
                                       -1);                                                    \
    })

/* ncclInProgress is success for a non-blocking communicator: the caller polls for completion. */
#define NCCL_CHECK(call)                                                                       \
    __extension__({                                                                            \
        ncclResult_t r_ = (call);                                                              \
        (r_ == ncclSuccess || r_ == ncclInProgress)                                            \
            ? 0                                                                                \
            : (gl_log("%s failed%s: %s (%s)", #call, gl_where(__FILE__, __LINE__),                \
                      ncclGetErrorString(r_), ncclGetLastError(NULL)),                         \
               -1);                                                                            \
    })

#endif
