// opkit's CUDA interpreter: a fault in a kernel (a bad address, an integer division by zero, a fiber's stack
// overflowing into its guard page) ends the launch with an error instead of killing the process. Included
// by cuda_interpret.h inside namespace opkit_interp.
//
// While launches run, handlers for SIGSEGV, SIGBUS and SIGFPE are installed (process-wide, counted, the
// previous ones restored after the last launch), on an alternate signal stack. A fault in a running
// kernel thread fails the launch and leaves that thread for good (its fiber is reset); a fault anywhere
// else gives the signal back to the previous handler. Only faults are caught: an access that lands in
// memory the process owns still reads or writes it (docs/gpu_interpreter.md).

static std::mutex& faults_lock()
{
    static std::mutex lock;
    return lock;
}
static int faults_users = 0;
static struct sigaction faults_previous[3];
static const int FAULT_SIGNALS[3] = {SIGSEGV, SIGBUS, SIGFPE};
static thread_local std::vector<char> t_signal_stack;

static void restore_fault_handlers()
{
    for (int i = 0; i < 3; ++i) sigaction(FAULT_SIGNALS[i], &faults_previous[i], nullptr);
}

static void on_fault(int signal_number, siginfo_t* info, void*)
{
    Launch* L = t_launch;
    Thread* t = t_thread;
    if (!L || !t || t->state != RUNNING || !t->fiber) {
        restore_fault_handlers();  // not a kernel's: the fault happens again under the previous handler
        return;
    }
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal_number);
    pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);  // this handler never returns
    char* address = (char*)info->si_addr;
    char* stack = t->fiber->stack;
    if (signal_number == SIGFPE)
        fail("an arithmetic fault (an integer division by zero, or INT_MIN / -1) in %s of %s: a GPU gives an "
             "unspecified value", where(*t).c_str(), block_name().c_str());
    else if (address < stack && address >= stack - 65536)
        fail("a stack overflow in %s of %s: a thread has %zu bytes of stack in the interpreter",
             where(*t).c_str(), block_name().c_str(), FIBER_STACK);
    else
        fail("cudaErrorIllegalAddress: %s of %s accessed address %p, which it does not own", where(*t).c_str(),
             block_name().c_str(), (void*)address);
    t->state = FAILED;
    switch_context(&t->fiber->context, &L->scheduler);
}

// Catch faults while this thread runs a launch: call with `on` true before, false after.
static inline void catch_faults(bool on)
{
    if (on && t_signal_stack.empty()) {
        stack_t current;
        if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
            t_signal_stack.resize(1 << 16);
            stack_t ours;
            ours.ss_sp = t_signal_stack.data();
            ours.ss_size = t_signal_stack.size();
            ours.ss_flags = 0;
            sigaltstack(&ours, nullptr);
        } else {
            t_signal_stack.resize(1);  // the thread has one already (Python's faulthandler's)
        }
    }
    std::lock_guard<std::mutex> guard(faults_lock());
    if (on && faults_users++ == 0) {
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fault;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        for (int i = 0; i < 3; ++i) sigaction(FAULT_SIGNALS[i], &action, &faults_previous[i]);
    } else if (!on && --faults_users == 0) {
        restore_fault_handlers();
    }
}
