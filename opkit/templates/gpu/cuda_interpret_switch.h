// opkit's CUDA interpreter: switching between the fibers that run a block's threads. Included by
// cuda_interpret.h inside namespace opkit_interp.
//
// On x86-64 a switch saves the callee-saved registers on the old stack and loads the new stack's (a few
// instructions, no system call: swapcontext's signal-mask call made a barrier-heavy kernel ~10x slower).
// Elsewhere, under AddressSanitizer (which must see stack switches) or with OPKIT_INTERP_UCONTEXT defined,
// ucontext's swapcontext.

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(OPKIT_INTERP_UCONTEXT)
#define OPKIT_INTERP_FAST_SWITCH 1
}  // namespace opkit_interp
// opkit_interp_switch(save, load): push the callee-saved registers, store the stack pointer in *save, take
// `load` as the stack pointer, pop that stack's registers and return where it switched away (or, for a new
// fiber, into its entry function). Weak and hidden: each module may carry a copy.
__asm__(".text\n"
        ".weak opkit_interp_switch\n"
        ".hidden opkit_interp_switch\n"
        ".type opkit_interp_switch, @function\n"
        "opkit_interp_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size opkit_interp_switch, .-opkit_interp_switch\n");
extern "C" void opkit_interp_switch(void** save, void* load);
namespace opkit_interp {

struct Context {
    void* sp;
};

static inline void switch_context(Context* from, Context* to) { opkit_interp_switch(&from->sp, to->sp); }

// A new context that starts `entry` (which never returns) on the stack [stack, stack + size).
static inline void make_context(Context* c, char* stack, size_t size, void (*entry)())
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void** sp = (void**)top;
    *--sp = nullptr;          // entry's return address: it never returns
    *--sp = (void*)entry;     // where the first switch's `ret` goes, with the stack as after a call
    for (int i = 0; i < 6; ++i) *--sp = nullptr;  // rbp, rbx, r12-r15
    --sp;                     // MXCSR and the x87 control word: the creating thread's
    unsigned int mxcsr;
    unsigned short x87;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(x87));
    std::memcpy((char*)sp, &mxcsr, 4);
    std::memcpy((char*)sp + 4, &x87, 2);
    c->sp = sp;
}
#else
struct Context {
    ucontext_t context;
};

static inline void switch_context(Context* from, Context* to) { swapcontext(&from->context, &to->context); }

static inline void make_context(Context* c, char* stack, size_t size, void (*entry)())
{
    getcontext(&c->context);
    c->context.uc_stack.ss_sp = stack;
    c->context.uc_stack.ss_size = size;
    c->context.uc_link = nullptr;
    makecontext(&c->context, entry, 0);
}
#endif
