/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The cuda_buffer custom buffer. The header explains the model; the comments here say why
// each deviation from GNU Radio's own host_buffer/gr-cuda pattern was made. References to
// GNU Radio's code are to v3.10.5.1, gnuradio-runtime/lib.
#include "device/device_ops.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <cstring>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpuinterp {

gr::buffer_type cuda_buffer::type(gr::buftype<cuda_buffer, cuda_buffer>{});

namespace {

//! The realignment's moves inside the device array: queued on the buffer's device operations, which
//! the caller waits for once the callback logic is done.
auto device_mover(device::device_ops* ops)
{
    return [ops](void* d, const void* s, size_t n) {
        ops->move_device_async(d, s, n);
        return d;
    };
}

device_binding binding_for(const gr::block_sptr& owner, const gr::block_sptr& link)
{
    for (const auto& b : { owner, link }) {
        if (auto* c = dynamic_cast<const device_buffer_client*>(b.get()))
            return c->buffer_binding();
    }
    // A block outside gr-gpuinterp that uses cuda_buffer::type directly: first GPU, else
    // simulated.
    if (cuda_device_count() > 0)
        return { memory_kind::cuda, 0 };
    return { memory_kind::simulated, 0 };
}

std::string block_name(const gr::block_sptr& b)
{
    return b ? b->identifier() : std::string("?");
}

} // namespace

gr::buffer_sptr cuda_buffer::make_buffer(int nitems,
                                         size_t sizeof_item,
                                         uint64_t downstream_lcm_nitems,
                                         uint32_t downstream_max_out_mult,
                                         gr::block_sptr link,
                                         gr::block_sptr buf_owner)
{
    std::vector<unsigned> avoid;
    // link != owner: flat_flowgraph::connect_block_inputs() is replacing the host buffer
    // of `link` (a host block) because `buf_owner` (a device-buffer block) reads it
    // (block::replace_buffer). When that output feeds several device-buffer blocks, GNU
    // Radio calls replace_buffer once per reader; each call makes a fresh buffer and
    // makes the writer use only the newest, so earlier readers wait forever on an
    // orphaned buffer (the fan-out deadlock). replace_buffer passes the current buffer's
    // own size and multiples, so the output being replaced is the one whose buffer
    // matches them; if that is already one of ours, the readers share it.
    if (link && buf_owner && link != buf_owner && link->detail()) {
        auto det = link->detail();
        std::vector<gr::buffer_sptr> cand;
        for (int i = 0; i < det->noutputs(); i++) {
            gr::buffer_sptr b = det->output(i);
            if (!b)
                continue;
            avoid.push_back(b->bufsize());
            if (b->bufsize() == unsigned(nitems) && b->get_sizeof_item() == sizeof_item &&
                b->get_downstream_lcm_nitems() == downstream_lcm_nitems &&
                b->get_max_reader_output_multiple() == downstream_max_out_mult)
                cand.push_back(b);
        }
        size_t ours = 0;
        for (auto& b : cand)
            ours += dynamic_cast<cuda_buffer*>(b.get()) != nullptr;
        if (cand.size() == 1 && ours == 1) {
            gr::logger log("device_buffers");
            log.debug("{} shares the device buffer of {} (one output, several "
                      "device-buffer readers)",
                      block_name(buf_owner),
                      block_name(link));
            return cand[0];
        }
        if (cand.size() == 1 && cand[0]->nreaders() > 0) {
            const std::string msg =
                "device_buffers: output of " + block_name(link) +
                " feeds both host-buffer blocks and the device-buffer block " +
                block_name(buf_owner) +
                ". GNU Radio 3.10 gives one output a single transfer type, so this "
                "flowgraph would hang; "
                "refused. Put a blocks.copy between " +
                block_name(link) +
                " and the device-buffer block(s), "
                "or set device_buffers=False on " +
                block_name(buf_owner) + ".";
            throw std::runtime_error(msg);
        }
        if (cand.size() > 1 && ours > 0)
            throw std::runtime_error(
                "device_buffers: cannot tell which output of " + block_name(link) +
                " is being connected to " + block_name(buf_owner) +
                " (several outputs have identical buffers); give them different "
                "min_output_buffer sizes, or put a blocks.copy in front of the "
                "device-buffer block(s).");
    }
    const device_binding b = binding_for(buf_owner, link);
    return gr::buffer_sptr(new cuda_buffer(nitems,
                                           sizeof_item,
                                           downstream_lcm_nitems,
                                           downstream_max_out_mult,
                                           link,
                                           buf_owner,
                                           b,
                                           avoid));
}

cuda_buffer::cuda_buffer(int nitems,
                         size_t sizeof_item,
                         uint64_t downstream_lcm_nitems,
                         uint32_t downstream_max_out_mult,
                         gr::block_sptr link,
                         gr::block_sptr buf_owner,
                         device_binding binding,
                         const std::vector<unsigned>& avoid_sizes)
    : gr::buffer_single_mapped(nitems,
                               sizeof_item,
                               downstream_lcm_nitems,
                               downstream_max_out_mult,
                               link,
                               buf_owner),
      d_binding(binding)
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "gpuinterp_cuda_buffer");
    d_ops = device::make_device_ops(binding);

    // First pass only computes GNU Radio's size (buffer_single_mapped::allocate_buffer
    // rounds it to the write/read granularity G). The final size is then chosen as a
    // multiple of G whose byte size is not a multiple of the page size, so it can never
    // equal a double-mapped buffer's size (those always are), and differs from the
    // writer's other outputs: that is what lets make_buffer() recognise its own buffer
    // when GNU Radio replaces it a second time.
    d_probe = true;
    allocate_buffer(nitems);
    d_probe = false;
    const uint64_t G = (d_write_multiple != 1 || d_downstream_lcm_nitems != 1)
                           ? std::lcm(d_write_multiple, d_downstream_lcm_nitems)
                           : 1;
    uint64_t k = (d_bufsize + G - 1) / G;
    for (int tries = 0; tries < 4096; tries++, k++) {
        const uint64_t n = k * G;
        const bool page_multiple = (n * sizeof_item) % 4096 == 0;
        bool taken = false;
        for (unsigned a : avoid_sizes)
            taken |= a == n;
        if (!page_multiple && !taken)
            break;
    }
    if (!allocate_buffer(int(k * G)))
        throw std::bad_alloc();

    // GNU Radio stores the owner as a shared_ptr (buffer_single_mapped::d_buf_owner), and
    // the owner's block_detail holds this buffer: a reference cycle, so a block with a
    // single-mapped buffer is never destroyed and its buffers never freed (device and
    // pinned memory leaked per flowgraph). Nothing in the runtime reads d_buf_owner after
    // construction; drop it.
    d_buf_owner.reset();
    live_buffer_counter()++; // last: a constructor that throws never reaches the destructor
}

cuda_buffer::~cuda_buffer()
{
    try {
        d_ops->wait();
    } catch (...) {
        // destructors never throw; the memory is freed regardless
    }
    d_ops->free_device(d_dev);
    d_ops->free_host(d_host);
    d_ops.reset();
    live_buffer_counter()--;
}

bool cuda_buffer::do_allocate_buffer(size_t final_nitems, size_t sizeof_item)
{
    if (d_probe)
        return true;
    d_bytes = final_nitems * sizeof_item;
    // Device memory is allocated now, in top_block.start()'s thread, so a failure
    // surfaces there. The pinned host array only exists for edges that cross the bus (see
    // update_reader_block_history).
    d_dev = static_cast<char*>(d_ops->alloc_device(d_bytes));
    d_base = d_dev;
    return true;
}

bool cuda_buffer::needs_host() const
{
    return d_transfer_type == gr::transfer_type::HOST_TO_DEVICE ||
           d_transfer_type == gr::transfer_type::DEVICE_TO_HOST ||
           d_transfer_type == gr::transfer_type::HOST_TO_HOST;
}

void cuda_buffer::ensure_host()
{
    if (!d_host) {
        d_host = static_cast<char*>(d_ops->alloc_host(d_bytes));
        d_base = d_host;
    }
}

void cuda_buffer::update_reader_block_history(unsigned history, int delay)
{
    // Called by buffer_add_reader() right after the edge's transfer type was set, still
    // in the thread that called start(): the place to allocate the pinned array when the
    // edge needs one.
    gr::buffer_single_mapped::update_reader_block_history(history, delay);
    if (needs_host())
        ensure_host();
}

void cuda_buffer::wait_transfers()
{
    const uint64_t target = d_issued.load();
    if (d_completed.load() >= target)
        return;
    d_ops->wait();
    uint64_t c = d_completed.load();
    while (c < target && !d_completed.compare_exchange_weak(c, target)) {
    }
}

void cuda_buffer::complete_transfers()
{
    d_ops->wait();
    d_completed = d_issued.load();
}

void cuda_buffer::post_work(int nitems)
{
    if (nitems <= 0)
        return;
    // Called by the scheduler outside the block's work(), so nothing would catch an
    // exception: a failing copy (a CUDA fault) is logged and ends the stream for the
    // readers instead of killing the writer's thread and leaving the flowgraph waiting
    // forever.
    try {
        queue_copy(nitems);
    } catch (const std::exception& e) {
        d_logger->error("copy failed, ending this stream: {}", e.what());
        set_done(true);
    }
}

void cuda_buffer::queue_copy(int nitems)
{
    // The write index has not been advanced yet, so it still marks what the writer just
    // produced.
    const size_t off = size_t(d_write_index) * d_sizeof_item;
    const size_t bytes = size_t(nitems) * d_sizeof_item;
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
        d_ops->copy_async(
            d_dev + off, d_host + off, bytes, device::copy_dir::host_to_device);
        d_issued++;
        break;
    case gr::transfer_type::DEVICE_TO_HOST:
        d_ops->copy_async(
            d_host + off, d_dev + off, bytes, device::copy_dir::device_to_host);
        d_issued++;
        break;
    case gr::transfer_type::DEVICE_TO_DEVICE:
    case gr::transfer_type::HOST_TO_HOST:
        break;
    default: {
        std::ostringstream msg;
        msg << "cuda_buffer: unexpected transfer type " << d_transfer_type;
        throw std::runtime_error(msg.str());
    }
    }
    // The writer does not wait: the copy overlaps its next work() call. Readers wait in
    // _read_pointer(); region reuse by the writer only happens after every reader
    // consumed (and therefore waited for) the items that were there.
}

void* cuda_buffer::write_pointer()
{
    const size_t off = size_t(d_write_index) * d_sizeof_item;
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
    case gr::transfer_type::HOST_TO_HOST:
        ensure_host();
        return d_host + off;
    case gr::transfer_type::DEVICE_TO_HOST:
    case gr::transfer_type::DEVICE_TO_DEVICE:
        return d_dev + off;
    default:
        throw std::runtime_error(
            "cuda_buffer: write_pointer() before a transfer type was assigned");
    }
}

char* cuda_buffer::reader_side()
{
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
    case gr::transfer_type::DEVICE_TO_DEVICE:
        return d_dev;
    case gr::transfer_type::DEVICE_TO_HOST:
    case gr::transfer_type::HOST_TO_HOST:
        ensure_host();
        return d_host;
    default:
        throw std::runtime_error("cuda_buffer: read before a transfer type was assigned");
    }
}

const void* cuda_buffer::_read_pointer(unsigned int read_index)
{
    try {
        wait_transfers();
    } catch (const std::exception& e) {
        d_logger->error("waiting for a copy failed, ending this stream: {}", e.what());
        set_done(true);
    }
    return reader_side() + size_t(read_index) * d_sizeof_item;
}

// GNU Radio 3.10.5.1's buffer_single_mapped::input_blkd_cb_ready() and
// output_blkd_cb_ready() write `gr::thread::scoped_lock(*this->mutex());`, which makes a
// temporary lock that is released at the end of the statement: the checks (and
// space_available(), which prunes the tag map) run unlocked while other threads update
// the indices and add tags. The scheduler calls both without holding the mutex, so here
// they take it for real.
bool cuda_buffer::input_blkd_cb_ready(int items_required, unsigned read_index)
{
    gr::thread::scoped_lock guard(*this->mutex());
    return (d_bufsize - read_index) < uint32_t(items_required) &&
           d_write_index < read_index;
}

int cuda_buffer::space_available()
{
    // space_available() reads every reader's indices and prunes the tag map, so it must
    // run under the buffer mutex. A failed try_lock means someone holds it (normally this
    // thread: the scheduler and our callbacks call this with the lock held); a successful
    // one is a bug.
    if (d_mutex.try_lock()) {
        d_mutex.unlock();
        d_unlocked_checks++;
    }
    return gr::buffer_single_mapped::space_available();
}

bool cuda_buffer::output_blkd_cb_ready(int output_multiple)
{
    gr::thread::scoped_lock guard(*this->mutex());
    const uint32_t space = uint32_t(space_available());
    return ((space > 0) || (space == 0 && d_has_history)) &&
           ((space / output_multiple) * output_multiple == 0);
}

namespace {
struct host_mem {
    static void* cpy(void* d, const void* s, size_t n) { return std::memcpy(d, s, n); }
    static void* mov(void* d, const void* s, size_t n) { return std::memmove(d, s, n); }
};
} // namespace

bool cuda_buffer::input_blocked_callback(int items_required,
                                         int items_avail,
                                         unsigned read_index)
{
    // Runs under the buffer lock with no work() active on this buffer. Data still in
    // flight must land before it is moved, and the moves must be complete before anyone
    // touches the array.
    complete_transfers();
    char* base = reader_side();
    bool rc;
    if (base == d_dev) {
        const auto move = device_mover(d_ops.get());
        rc = input_blocked_callback_logic(
            items_required, items_avail, read_index, base, move, move);
        d_ops->wait();
    } else {
        rc = input_blocked_callback_logic(
            items_required, items_avail, read_index, base, host_mem::cpy, host_mem::mov);
    }
    return rc;
}

bool cuda_buffer::output_blocked_callback(int output_multiple, bool force)
{
    complete_transfers();
    // GNU Radio's realignment picks the reader with the smallest *index*. With several
    // readers, one may still be reading the tail (index > write index) while another
    // already wrapped: moving then shifts the lagging reader's index without moving its
    // data. Realign only when every reader's unread items sit in [index, write index).
    for (size_t i = 0; i < d_readers.size(); i++) {
        const unsigned r = d_readers[i]->get_read_index();
        if (r > d_write_index ||
            (r == d_write_index && d_readers[i]->items_available() != 0))
            return false;
    }
    char* base = reader_side();
    bool rc;
    if (base == d_dev) {
        const auto move = device_mover(d_ops.get());
        rc = output_blocked_callback_logic(output_multiple, force, base, move);
        d_ops->wait();
    } else {
        rc = output_blocked_callback_logic(output_multiple, force, base, host_mem::mov);
    }
    return rc;
}

gr::io_signature::sptr device_buffer_signature(bool device_buffers,
                                               int min_streams,
                                               int max_streams,
                                               size_t sizeof_item)
{
    if (device_buffers)
        return gr::io_signature::make(
            min_streams, max_streams, sizeof_item, cuda_buffer::type);
    return gr::io_signature::make(min_streams, max_streams, sizeof_item);
}

} // namespace gpuinterp
} // namespace gr
