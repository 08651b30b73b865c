// opkit's CUDA interpreter: releasing the warp collectives (__shfl*_sync, __ballot_sync, __all_sync,
// __any_sync, __match_*_sync, __reduce_*_sync, __syncwarp). Included by cuda_interpret.h inside
// namespace opkit_interp: every started thread is done or waits somewhere when this runs.
//
// A group is the threads of one warp waiting at one kind of collective with one mask. Its mask must
// name the caller; each other lane it names must take part, have exited, or not exist (the last warp of
// a block whose size is not a multiple of 32). A lane that waits elsewhere (another collective, another
// mask, a __syncthreads) makes the warp diverge: undefined in CUDA, so refused. A shuffle computes its
// source lane as PTX's shfl.sync does (width segments, clamping to its own value) and must read a lane
// that takes part.

static inline bool shuffle_source(const Thread& u, int* source)
{
    int width = u.width;
    if (width < 1 || width > 32 || (width & (width - 1))) {
        fail("%s:%d: %s in %s: width %d is not a power of 2 from 1 to 32 (undefined in CUDA)", u.file, u.line,
             kind_name(u.kind), block_name().c_str(), width);
        return false;
    }
    long long lane = u.linear % 32, segmask = (32 - width) & 31;
    long long min_lane = lane & segmask, max_lane = min_lane | (31 & ~segmask), j = lane;
    long long b = (long long)(unsigned)u.lane_arg;
    bool valid = true;
    if (u.kind == SHFL_UP) {
        j = lane - b;
        valid = j >= min_lane;
    } else if (u.kind == SHFL_DOWN) {
        j = lane + b;
        valid = j <= max_lane;
    } else if (u.kind == SHFL_XOR) {
        j = lane ^ b;
        valid = j <= max_lane;
    } else {
        j = min_lane | (b & 31 & ~segmask);
    }
    *source = valid ? (int)j : (int)lane;
    return true;
}

static inline uint64_t group_result(Launch* L, const Thread& u, int base, unsigned taking_part)
{
    uint64_t r = 0;
    int kind = u.kind;
    for (int l = 0; l < 32; ++l) {
        if (!(taking_part >> l & 1)) continue;
        const Thread& v = L->threads[base + l];
        uint32_t value = (uint32_t)v.value;
        switch (kind) {
        case BALLOT: r |= (uint64_t)(v.value != 0) << l; break;
        case ALL: r += v.value != 0; break;
        case ANY: r |= v.value != 0; break;
        case MATCH_ANY: r |= (uint64_t)(v.value == u.value) << l; break;
        case MATCH_ALL: r += v.value == u.value; break;
        case REDUCE_ADD: r = (uint32_t)(r + value); break;
        case REDUCE_AND: r = l == __builtin_ctz(taking_part) ? value : (r & value); break;
        case REDUCE_OR: r |= value; break;
        case REDUCE_XOR: r ^= value; break;
        case REDUCE_UMIN: r = l == __builtin_ctz(taking_part) || value < r ? value : r; break;
        case REDUCE_UMAX: r = value > r ? value : r; break;
        case REDUCE_MIN:
            r = l == __builtin_ctz(taking_part) || (int32_t)value < (int32_t)(uint32_t)r ? value : r;
            break;
        case REDUCE_MAX:
            r = l == __builtin_ctz(taking_part) || (int32_t)value > (int32_t)(uint32_t)r ? value : r;
            break;
        default: break;
        }
    }
    int n = __builtin_popcount(taking_part);
    if (kind == ALL) return r == (uint64_t)n;
    if (kind == MATCH_ALL) return r == (uint64_t)n ? taking_part : 0;
    return r;
}

// The group of the waiting thread `t`: the lanes taking part, or -1 (with the launch failed).
static inline long long warp_group(Launch* L, const Thread& t)
{
    int base = t.linear / 32 * 32, lane = t.linear % 32, n = (int)L->threads.size();
    if (!(t.mask >> lane & 1)) {
        fail("%s:%d: %s in %s: its mask 0x%08x does not name the calling %s (lane %d) (undefined in CUDA)",
             t.file, t.line, kind_name(t.kind), block_name().c_str(), t.mask, where(t).c_str(), lane);
        return -1;
    }
    unsigned taking_part = 0;
    for (int l = 0; l < 32; ++l) {
        if (!(t.mask >> l & 1) || base + l >= n) continue;
        const Thread& u = L->threads[base + l];
        if (u.state == DONE) continue;
        if (u.state == AT_WARP && u.kind == t.kind && u.mask == t.mask) {
            taking_part |= 1u << l;
            continue;
        }
        if (u.state == AT_WARP)
            fail("%s:%d: divergent warp in %s: %s waits at %s with mask 0x%08x while %s waits at %s with mask "
                 "0x%08x at %s:%d (undefined in CUDA: the threads a mask names must all call the same collective "
                 "with the same mask)", t.file, t.line, block_name().c_str(), where(t).c_str(), kind_name(t.kind),
                 t.mask, where(u).c_str(), kind_name(u.kind), u.mask, u.file, u.line);
        else
            fail("%s:%d: %s in %s: %s waits here with mask 0x%08x, which names %s, waiting at %s at %s:%d "
                 "(a GPU would deadlock or give undefined results)", t.file, t.line, kind_name(t.kind),
                 block_name().c_str(), where(t).c_str(), t.mask, where(u).c_str(), kind_name(u.kind), u.file,
                 u.line);
        return -1;
    }
    return taking_part;
}

// Release each warp group that is complete: true if any was, false if none or the launch failed.
static inline bool release_warps(Launch* L)
{
    std::vector<Thread*> released;
    for (Thread& t : L->threads) {
        if (t.state != AT_WARP) continue;
        long long group = warp_group(L, t);
        if (group < 0) return false;
        unsigned taking_part = (unsigned)group;
        int base = t.linear / 32 * 32;
        for (int l = 0; l < 32; ++l) {
            if (!(taking_part >> l & 1)) continue;
            Thread& u = L->threads[base + l];
            if (u.kind >= SHFL_IDX && u.kind <= SHFL_XOR) {
                int source;
                if (!shuffle_source(u, &source)) return false;
                if (!(taking_part >> source & 1)) {
                    fail("%s:%d: %s in %s: %s reads lane %d, which %s (undefined in CUDA)", u.file, u.line,
                         kind_name(u.kind), block_name().c_str(), where(u).c_str(), source,
                         !(u.mask >> source & 1) ? "its mask does not name"
                         : base + source >= (int)L->threads.size() ? "does not exist in this block"
                         : "has exited");
                    return false;
                }
                u.result = L->threads[base + source].value;
            } else {
                u.result = group_result(L, u, base, taking_part);
            }
        }
        for (int l = 0; l < 32; ++l) {
            if (!(taking_part >> l & 1)) continue;
            L->threads[base + l].state = RUNNING;
            released.push_back(&L->threads[base + l]);
        }
    }
    for (size_t k = 0; k < released.size() && !L->failed; ++k) {
        Thread* t = released[L->reverse ? released.size() - 1 - k : k];
        enter(t->fiber, t);
    }
    return !released.empty() && !L->failed;
}
