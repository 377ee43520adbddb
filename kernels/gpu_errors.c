/*
 * gpu_errors.c - text of the GPU_E* codes, shared by the CUDA build and the
 * stub (plain C, so both link the same one).
 */
#include "gpusort_kernels.h"

const char *gpu_strerror(int err)
{
	switch (err) {
	case GPU_OK: return "success";
	case GPU_ENODEV: return "no such CUDA device";
	case GPU_ENOMEM: return "out of device or pinned host memory";
	case GPU_ECUDA: return "CUDA runtime error";
	case GPU_EINVAL: return "invalid argument";
	case GPU_ENOTSUP: return "built without CUDA support";
	default: return "unknown GPU error";
	}
}
