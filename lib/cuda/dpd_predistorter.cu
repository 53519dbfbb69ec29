// temporary stub
#include "../kernel/dpd_engine.h"
#include <stdexcept>
namespace gr { namespace gpuinterp { namespace gpu {
std::unique_ptr<kernel::dpd_engine> make_cuda_dpd_engine(int, size_t, bool) { throw std::runtime_error("todo"); }
double time_dpd_kernel_ms(int, const kernel::dpd_packed&, size_t, int, kernel::dpd_cuda_variant, kernel::dpd_cuda_variant*) { return 0; }
}}}
