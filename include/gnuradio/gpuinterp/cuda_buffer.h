/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_BUFFER_H
#define INCLUDED_GPUINTERP_CUDA_BUFFER_H

#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/gpuinterp/device_binding.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/transfer_type.h>
#include <atomic>
#include <memory>

namespace gr {
namespace gpuinterp {

namespace device {
class device_ops;
}

/*!
 * \brief Implemented by every block whose ports may use cuda_buffer: says which device
 * (or the host-memory simulation) the block's buffers belong to. A buffer asks the block
 * that owns it.
 */
class GPUINTERP_API device_buffer_client
{
public:
    virtual ~device_buffer_client() = default;
    virtual device_binding buffer_binding() const = 0;
};

/*!
 * \brief GNU Radio 3.10 custom buffer holding a stream in device memory (plus a pinned
 * host mirror where the edge crosses the bus), so chains of GPU blocks pass data device
 * to device.
 *
 * \details The scheduler gives each buffer one transfer type: HOST_TO_DEVICE (a host
 * block writes the pinned host array, post_work() queues the copy to the device array,
 * device blocks read the device array), DEVICE_TO_HOST (the reverse) or DEVICE_TO_DEVICE
 * (no copy at all). Copies are queued on the buffer's own stream and never waited for by
 * the writer; a reader waits for them in read_pointer() (a wait on that stream only).
 * Single-mapped wrap-around is handled on the side the readers read (device array for
 * H2D/D2D, host array for D2H): after a copy has been queued the writer-side array holds
 * nothing that is read again.
 *
 * Also works around three defects of GNU Radio 3.10.5.1's custom-buffer runtime (see
 * docs/device_buffers.md): the *_blkd_cb_ready() checks that do not hold the buffer lock,
 * a host output feeding several device-buffer blocks (GNU Radio replaces the buffer once
 * per reader and orphans all but the last: the flowgraph hangs; here the readers share
 * one buffer), and the owner reference that makes every block with a single-mapped buffer
 * immortal (device and pinned memory leaked per flowgraph; here it is dropped).
 */
class GPUINTERP_API cuda_buffer : public gr::buffer_single_mapped
{
public:
    static gr::buffer_type type;

    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link = gr::block_sptr(),
                                       gr::block_sptr buf_owner = gr::block_sptr());

    ~cuda_buffer() override;

    //! The device (or simulation) this buffer's device array lives on.
    device_binding binding() const { return d_binding; }
    gr::transfer_type transfer() const { return d_transfer_type; }
    //! Block until every copy queued so far has completed.
    void wait_transfers();

    //! space_available() calls made without the buffer mutex held (GNU Radio's unlocked
    //! output_blkd_cb_ready() makes them; with this class's override there are none).
    long unlocked_space_checks() const { return d_unlocked_checks; }

    int space_available() override;
    void post_work(int nitems) override;
    bool do_allocate_buffer(size_t final_nitems, size_t sizeof_item) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blkd_cb_ready(int items_required, unsigned read_index) override;
    bool input_blocked_callback(int items_required,
                                int items_avail,
                                unsigned read_index) override;
    bool output_blkd_cb_ready(int output_multiple) override;
    bool output_blocked_callback(int output_multiple, bool force) override;
    void update_reader_block_history(unsigned history, int delay) override;

private:
    cuda_buffer(int nitems,
                size_t sizeof_item,
                uint64_t downstream_lcm_nitems,
                uint32_t downstream_max_out_mult,
                gr::block_sptr link,
                gr::block_sptr buf_owner,
                device_binding binding,
                const std::vector<unsigned>& avoid_sizes);

    bool needs_host() const;
    void queue_copy(int nitems);
    void ensure_host();
    char* reader_side();
    void complete_transfers();

    device_binding d_binding;
    std::unique_ptr<device::device_ops> d_ops;
    char* d_dev = nullptr;
    char* d_host = nullptr;
    size_t d_bytes = 0;
    bool d_probe = false;
    std::atomic<uint64_t> d_issued{ 0 };    // copies queued by post_work()
    std::atomic<uint64_t> d_completed{ 0 }; // highest d_issued known complete
    std::atomic<long> d_unlocked_checks{ 0 };
};

/*!
 * \brief The io_signature a gpuinterp block uses for its stream ports: plain host
 * buffers, or cuda_buffer when `device_buffers` is set.
 */
GPUINTERP_API gr::io_signature::sptr device_buffer_signature(bool device_buffers,
                                                             int min_streams,
                                                             int max_streams,
                                                             size_t sizeof_item);

} // namespace gpuinterp
} // namespace gr

#endif
