// chessgrade adapter kit: the protocol side of an adapter that puts a course's own C++
// classes behind the engine protocol (v1 and v2, docs/protocol.md). It reaches the
// student's code only through the hooks of chessgrade_kit.hh, which a course's hook file
// defines (Lab 3's: adapters/lab3-cpp/hooks.cc; seed 004's: adapters/design004/hooks.cc).
//
// Build (the grader does this; this file includes no student or course header, so its
// object is compiled once per machine, compiler and flags and cached; the hook file is
// compiled with each submission):
//   g++ -std=c++17 -g -Wall -c kit_main.cc                  (chessgrade_kit.hh beside it)
//   g++ -std=c++17 -g -Wall -c hooks.cc -I<student dir>     (chessgrade_kit.hh beside it)
//   g++ -o engine kit_main.o hooks.o <student .o files except the one with main()>
//
// The kit speaks the protocol on PRIVATE copies of the original stdin/stdout. Before any
// student code runs (constructor priority 101, ahead of the student's static initialisers),
// fd 0 and fd 1 are duplicated to private descriptors, fd 1 is pointed at fd 2 (so every
// std::cout / printf of the student lands on stderr) and fd 0 at /dev/null.
//
// v2 capabilities (declared in the handshake):
//   scan  `SCAN VALID` / `SCAN THREAT` are expanded here, in-process, calling the `valid` /
//         `threatened` hooks for every pair / square in row-major order (for Lab 3 exactly
//         the course grader's isValidMove / isPieceUnderThreat calls); only the true
//         results are sent back.
//   fork  a fork server: each scenario (`BEGIN` ... `END`) is served by a fresh child, and
//         the server answers `ENDED exit N` or `ENDED signal NAME` when it has ended. No
//         state leaks between scenarios (statics, leaks, a corrupted heap all die with the
//         child) and exec/startup is paid once.
//
// What the hooks cannot serve is answered `ERR unsupported: <why>` (a request the kit has
// no hook for, an optional hook the hook file does not define, a hook that calls
// chessgrade::unsupported, a setup a placed piece cannot express), and a hook that answers
// outside its contract `ERR hook <name>: <what>`: the grader reports both as the staff's
// problem (the scenario cannot be put to this course's classes), never as the student's.
// A C++ exception thrown by student code is `ERR exception: <what>`, the student's.
//
// Every scenario's child starts from the same process state, whatever ran before, in what
// order, and however the requests were chunked or timed (a student's use-after-free or
// uninitialised read gets the same answer as in a fresh process; tests/it/determinism.rs):
//
//   front   the process the grader started. It reads requests, serves those outside a
//           session (v1, the handshake) and answers `ENDED`. It never forks a scenario
//           itself: its heap has a history (what it read, in which chunks, what it served).
//   zygote  forked by the front in run(), after the static initialisers, setup_fds and
//           install_crash_flush and before any request is read. It never touches the malloc
//           heap (only syscalls and fixed stack buffers), so every fork of it is the same
//           process. On the front's order it hands the scenario to its child, waits for it
//           and reports its raw wait status (a fixed-size message); the front turns that
//           into `ENDED`. Right after reporting it forks the next child ahead of time (a
//           "spare", blocked on a private pipe), so the fork overlaps with the grader
//           judging the scenario that just ended.
//   child   a fork of the zygote. At `BEGIN` the front sends the zygote the requests it has
//           already read after `BEGIN` (length-prefixed; the zygote copies them through a
//           fixed buffer to the spare's pipe); the child then reads the rest of the scenario
//           from the grader's pipe itself, up to `END`, before serving anything. Its request
//           and answer buffers are mmap'd, never on the malloc heap, and answers are flushed
//           only at points fixed by the answers themselves (every 64 KiB, and at `END`); the
//           stack below the serving loop is zeroed after each of those reads and writes. So
//           pipe chunking and the grader's read timing never reach the heap or the stack
//           that student code sees.
//
// Answers are buffered (mmap'd, growable) and written when the front would block on input,
// when 64 KiB are pending, or at a session's end; a fatal signal or an exit() in student code
// writes what is pending first, so the grader still sees every answer given before the crash.
//
// Memory checking (`grade --memcheck`, compiled with -DCHESSGRADE_MEMCHECK, and with
// -fsanitize=address,undefined for AddressSanitizer): no `fork` capability (the grader runs one
// process per scenario: a sanitizer or valgrind reads its own /proc/<pid>, which a forked child
// could not), the `end_board` hook runs at the end (`QUIT` or end of input) so that the
// student's destructors run as in the course's tests, then the leak check (LeakSanitizer;
// valgrind checks at exit). A sanitizer that stops the process at its first error first
// writes the pending answers (its death callback); under valgrind, which stops without one,
// every answer is written as soon as it is made. The crash handlers hand a fault on to the
// sanitizer's own handler (its report names the student's line) after writing the pending
// answers.

#include <cerrno>
#include <cstdarg>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chessgrade_kit.hh"

#ifdef CHESSGRADE_MEMCHECK
// The sanitizers' interface (weak: absent under valgrind, which needs none of it).
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern "C" int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
#endif

namespace chessgrade_kit
{
namespace hooks = chessgrade::hooks;
using chessgrade::Square;

int g_in = -1;  // private copy of the grader's request pipe
int g_out = -1; // private copy of the grader's answer pipe

const int kMaxDim = 256;
const size_t kEagerWrite = 1 << 16; // write once this much is pending
const size_t kBufInitial = 1 << 16; // the first size of every buffer
const size_t kReadChunk = 1 << 16;  // room made before a read

// ---------------------------------------------------------------------------------------
// file descriptors

void setup_fds()
{
    if (g_in >= 0)
        return;
    g_in = fcntl(0, F_DUPFD_CLOEXEC, 3);
    g_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (g_in < 0 || g_out < 0)
    {
        const char msg[] = "chessgrade kit: stdin/stdout not open\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(2);
    }
    // student stdout -> our stderr; if fd 2 is unusable, send it to /dev/null instead
    if (dup2(2, 1) < 0)
    {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0 && devnull != 1)
        {
            dup2(devnull, 1);
            close(devnull);
        }
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0 && devnull != 0)
    {
        dup2(devnull, 0);
        close(devnull);
    }
    // answers go into a pipe without blocking, so that a grader that writes many requests
    // ahead before reading can never deadlock us (see run()); a terminal or a file is left
    // alone (O_NONBLOCK on a shared tty would leak into the shell)
    struct stat st;
    if (fstat(g_out, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
    {
        int fl = fcntl(g_out, F_GETFL);
        if (fl >= 0)
            fcntl(g_out, F_SETFL, fl | O_NONBLOCK);
    }
    // a vanished grader must not kill us with SIGPIPE in the middle of student code;
    // write errors are handled below
    signal(SIGPIPE, SIG_IGN);
}

__attribute__((constructor(101))) void early_setup_fds() { setup_fds(); }

// Whole reads and writes on blocking descriptors, through interruptions. read_full returns
// the bytes read (fewer only at end of file or on an error); write_full false on an error.
size_t read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n)
    {
        ssize_t r = read(fd, static_cast<char *>(p) + got, n - got);
        if (r > 0)
            got += static_cast<size_t>(r);
        else if (r < 0 && errno == EINTR)
            continue;
        else
            break;
    }
    return got;
}

bool write_full(int fd, const void *p, size_t n)
{
    size_t done = 0;
    while (done < n)
    {
        ssize_t r = write(fd, static_cast<const char *>(p) + done, n - done);
        if (r > 0)
            done += static_cast<size_t>(r);
        else if (r < 0 && errno == EINTR)
            continue;
        else
            return false;
    }
    return true;
}

// Writes [a, a + na) then [b, b + nb) on a blocking descriptor, in one writev when the pipe
// takes both (the reader wakes once, not once per part); false on an error.
bool write_two(int fd, const void *a, size_t na, const void *b, size_t nb)
{
    struct iovec iov[2] = {{const_cast<void *>(a), na}, {const_cast<void *>(b), nb}};
    struct iovec *v = iov;
    int count = 2;
    while (count > 0)
    {
        ssize_t r = writev(fd, v, count);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return false;
        size_t done = static_cast<size_t>(r);
        while (count > 0 && done >= v->iov_len)
        {
            done -= v->iov_len;
            v++;
            count--;
        }
        if (count > 0)
        {
            v->iov_base = static_cast<char *>(v->iov_base) + done;
            v->iov_len -= done;
        }
    }
    return true;
}

// Waits for child `pid`, through interruptions; false if it cannot be waited for.
bool reap(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0)
    {
        if (errno != EINTR)
            return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------
// buffers off the malloc heap
//
// Requests, answers and a scan's lines live in anonymous mappings that grow by doubling
// (a fresh mapping, a copy, the old one unmapped). Nothing the adapter does with them
// allocates on the heap the student's code uses, so their sizes and the way the requests
// arrived leave no trace there.

struct Buf
{
    char *data;
    size_t len;
    size_t cap;
};

Buf g_req = {nullptr, 0, 0};  // requests read, not served yet from g_reqpos
size_t g_reqpos = 0;          //
Buf g_ans = {nullptr, 0, 0};  // answers, written up to g_anspos
size_t g_anspos = 0;          //
Buf g_scan = {nullptr, 0, 0}; // a scan's lines, before its count is known

[[noreturn]] void out_of_memory()
{
    const char msg[] = "chessgrade kit: out of memory for its buffers\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(1);
}

void reserve(Buf &b, size_t need)
{
    if (need <= b.cap)
        return;
    size_t cap = b.cap ? b.cap : kBufInitial;
    while (cap < need)
        cap *= 2;
    void *p = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        out_of_memory();
    if (b.len > 0)
        memcpy(p, b.data, b.len);
    if (b.data != nullptr)
        munmap(b.data, b.cap);
    b.data = static_cast<char *>(p);
    b.cap = cap;
}

void put(Buf &b, const char *s, size_t n)
{
    reserve(b, b.len + n);
    memcpy(b.data + b.len, s, n);
    b.len += n;
}

void put_str(Buf &b, const char *s) { put(b, s, strlen(s)); }

void put_char(Buf &b, char c) { put(b, &c, 1); }

void put_int(Buf &b, int v)
{
    char tmp[16];
    int n = snprintf(tmp, sizeof tmp, "%d", v);
    put(b, tmp, static_cast<size_t>(n));
}

// Zeroes the stack below the caller's frame. Called after every read or write whose size
// or count depends on timing, so that what those calls left on the stack never reaches an
// uninitialised local of the student's.
__attribute__((noinline)) void scrub_stack()
{
    char pad[32768];
    memset(pad, 0, sizeof pad);
    __asm__ __volatile__("" : : "r"(pad) : "memory");
}

// ---------------------------------------------------------------------------------------
// answers

void flush_student_output()
{
    std::cout.flush();
    std::fflush(stdout);
}

[[noreturn]] void quit(int code)
{
    flush_student_output();
    _exit(code);
}

// write what the pipe accepts now; returns false on a fatal error
bool write_some()
{
    while (g_anspos < g_ans.len)
    {
        ssize_t n = write(g_out, g_ans.data + g_anspos, g_ans.len - g_anspos);
        if (n > 0)
        {
            g_anspos += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        return false;
    }
    g_ans.len = 0;
    g_anspos = 0;
    return true;
}

// Writes [p, p + n) to g_out, waiting for the pipe as needed; false on a fatal error.
// Async-signal-safe (write and poll only).
bool write_waiting(const char *p, size_t n)
{
    while (n > 0)
    {
        ssize_t w = write(g_out, p, n);
        if (w > 0)
        {
            p += w;
            n -= static_cast<size_t>(w);
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
            struct pollfd pf = {g_out, POLLOUT, 0};
            int r = poll(&pf, 1, -1);
            if (r < 0 && errno != EINTR)
                return false;
            if (r > 0 && (pf.revents & (POLLERR | POLLNVAL)))
                return false;
            continue;
        }
        return false;
    }
    return true;
}

// write everything, waiting for the pipe as needed
void flush_all()
{
    if (!write_waiting(g_ans.data + g_anspos, g_ans.len - g_anspos))
        quit(1);
    g_ans.len = 0;
    g_anspos = 0;
}

#ifdef CHESSGRADE_MEMCHECK
// The handlers in place before ours (a sanitizer's), by signal number.
struct sigaction g_previous[NSIG];
#endif

// Async-signal-safe: on a fatal signal in student code, send the answers given so far
// (no allocation), then die of the same signal. Under a sanitizer its own handler takes the
// fault over instead: put back, it runs when the faulting instruction runs again.
void on_fatal_signal(int sig)
{
    if (g_anspos < g_ans.len)
        write_waiting(g_ans.data + g_anspos, g_ans.len - g_anspos);
#ifdef CHESSGRADE_MEMCHECK
    const struct sigaction &prev = g_previous[sig];
    bool handled = (prev.sa_flags & SA_SIGINFO) ? prev.sa_sigaction != nullptr
                                                : (prev.sa_handler != SIG_DFL &&
                                                   prev.sa_handler != SIG_IGN);
    if (handled && sig != SIGABRT)
    {
        sigaction(sig, &prev, nullptr);
        return;
    }
#endif
    signal(sig, SIG_DFL);
    raise(sig);
}

#ifdef CHESSGRADE_MEMCHECK
// A sanitizer stops the process at its first error: the answers given before it go first.
void on_sanitizer_death()
{
    if (g_anspos < g_ans.len)
        write_waiting(g_ans.data + g_anspos, g_ans.len - g_anspos);
}
#endif

void at_exit_flush()
{
    // a student exit(): pending answers first
    if (g_anspos < g_ans.len)
        flush_all();
}

void install_crash_flush()
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
    {
#ifdef CHESSGRADE_MEMCHECK
        sigaction(sig, &sa, &g_previous[sig]);
#else
        sigaction(sig, &sa, nullptr);
#endif
    }
    atexit(at_exit_flush);
#ifdef CHESSGRADE_MEMCHECK
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

void answer_cstr(const char *s)
{
    put_str(g_ans, s);
    put_char(g_ans, '\n');
}

// ---------------------------------------------------------------------------------------
// requests

int g_rows = 0; // the board's size; 0 while there is none
int g_cols = 0;
bool g_standard = false; // the rule set is `standard`: a setup's castling rights are checked

// The setup being made: from `NEW` / `FEN` until the first request that is not `PLACE` or
// `TURN`. A placed piece has not moved, so under `standard` the castling rights the setup
// declares must be those its kings and rooks on their home squares give (checked when the
// setup ends); on 8x8 the kit keeps what it placed for that.
bool g_setup_open = false;
int g_declared_rights = 0; // kWhiteShort | kWhiteLong | kBlackShort | kBlackLong
char g_placed[8][8];
const int kWhiteShort = 1, kWhiteLong = 2, kBlackShort = 4, kBlackLong = 8;

// A request line split on spaces and tabs: the first kMaxTok tokens, and how many there are.
const size_t kMaxTok = 8;
struct Tok
{
    const char *p;
    size_t n;
};
struct Line
{
    Tok tok[kMaxTok];
    size_t n;
};

void tokenize(const char *p, size_t len, Line &line)
{
    if (len > 0 && p[len - 1] == '\r')
        len--;
    line.n = 0;
    size_t i = 0;
    while (i < len)
    {
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        size_t j = i;
        while (j < len && p[j] != ' ' && p[j] != '\t')
            j++;
        if (j > i)
        {
            if (line.n < kMaxTok)
                line.tok[line.n] = Tok{p + i, j - i};
            line.n++;
        }
        i = j;
    }
}

bool is(const Tok &t, const char *s)
{
    size_t k = strlen(s);
    return t.n == k && memcmp(t.p, s, k) == 0;
}

bool parse_int(const Tok &t, int &out)
{
    if (t.n == 0 || t.n > 9)
        return false;
    size_t i = 0;
    bool neg = false;
    if (t.p[0] == '-')
    {
        neg = true;
        i = 1;
        if (t.n == 1)
            return false;
    }
    long v = 0;
    for (; i < t.n; i++)
    {
        if (t.p[i] < '0' || t.p[i] > '9')
            return false;
        v = v * 10 + (t.p[i] - '0');
    }
    out = static_cast<int>(neg ? -v : v);
    return true;
}

bool on_board(int r, int c) { return r >= 0 && r < g_rows && c >= 0 && c < g_cols; }

// Writes `text` to the answers on one line, at most 200 bytes of it.
void put_line_text(const char *text)
{
    size_t n = 0;
    for (const char *p = text ? text : ""; *p && n < 200; p++, n++)
        put_char(g_ans, (*p == '\n' || *p == '\r') ? ' ' : *p);
    put_char(g_ans, '\n');
}

// `ERR exception: <text>`: student code threw
void answer_exception(const char *text)
{
    put_str(g_ans, "ERR exception: ");
    put_line_text(text);
}

// What the course's classes cannot be asked (chessgrade::unsupported, or the kit's own
// refusal): the kit's own exception type, which student code has no reason to catch.
struct Refusal
{
    char why[256];
};

// A hook answered outside its contract: the hook file's error.
struct HookError
{
    const char *hook;
    char what[256];
};

[[noreturn]] __attribute__((format(printf, 1, 2))) void refuse(const char *format, ...)
{
    Refusal refusal;
    va_list args;
    va_start(args, format);
    vsnprintf(refusal.why, sizeof refusal.why, format, args);
    va_end(args);
    throw refusal;
}

// The optional hook `fn` (named `name`, what it answers: `serves`) must be defined.
template <typename F> void need(F *fn, const char *name, const char *serves)
{
    if (fn == nullptr)
        refuse("the hook file defines no `%s` hook (%s)", name, serves);
}

const char *signal_name(int sig)
{
    switch (sig)
    {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGXCPU:
        return "SIGXCPU";
    case SIGXFSZ:
        return "SIGXFSZ";
    case SIGTERM:
        return "SIGTERM";
    case SIGPIPE:
        return "SIGPIPE";
    case SIGSYS:
        return "SIGSYS";
    default:
        return nullptr;
    }
}

// `SCAN <n>` and the n lines gathered in g_scan
void answer_scan(size_t count)
{
    put_str(g_ans, "SCAN ");
    put_int(g_ans, static_cast<int>(count));
    put_char(g_ans, '\n');
    put(g_ans, g_scan.data, g_scan.len);
}

// The `valid` hook for every (from, to), both row-major, from == to included: for Lab 3 the
// course grader's order and number of isValidMove calls. Only the true ones are sent.
void scan_valid()
{
    need(hooks::valid, "valid", "isValidMove: VALID, SCAN VALID");
    g_scan.len = 0;
    size_t count = 0;
    for (int r1 = 0; r1 < g_rows; r1++)
        for (int c1 = 0; c1 < g_cols; c1++)
            for (int r2 = 0; r2 < g_rows; r2++)
                for (int c2 = 0; c2 < g_cols; c2++)
                    if (hooks::valid(Square{r1, c1}, Square{r2, c2}))
                    {
                        count++;
                        put_int(g_scan, r1);
                        put_char(g_scan, ' ');
                        put_int(g_scan, c1);
                        put_char(g_scan, ' ');
                        put_int(g_scan, r2);
                        put_char(g_scan, ' ');
                        put_int(g_scan, c2);
                        put_char(g_scan, '\n');
                    }
    answer_scan(count);
}

// The `threatened` hook for every square, row-major.
void scan_threat()
{
    need(hooks::threatened, "threatened", "isPieceUnderThreat: THREAT, SCAN THREAT");
    g_scan.len = 0;
    size_t count = 0;
    for (int r = 0; r < g_rows; r++)
        for (int c = 0; c < g_cols; c++)
            if (hooks::threatened(Square{r, c}))
            {
                count++;
                put_int(g_scan, r);
                put_char(g_scan, ' ');
                put_int(g_scan, c);
                put_char(g_scan, '\n');
            }
    answer_scan(count);
}

bool is_piece_letter(char c) { return c != '\0' && strchr("KQRBNPkqrbnp", c) != nullptr; }

// piece_at's answer at (r, c), checked: '.', '?' or a piece letter.
char piece_at(int r, int c)
{
    char ch = hooks::piece_at(Square{r, c});
    if (ch == '.' || ch == '?' || is_piece_letter(ch))
        return ch;
    HookError error;
    error.hook = "piece_at";
    snprintf(error.what, sizeof error.what,
             "answered character %d ('%c') for row %d column %d, which is no piece: the hook "
             "answers '.', '?' or one of KQRBNPkqrbnp",
             static_cast<unsigned char>(ch), (ch >= 32 && ch < 127) ? ch : '?', r, c);
    throw error;
}

// A new board of rows x cols (checked by the caller): the setup begins.
void new_board(int rows, int cols)
{
    g_rows = g_cols = 0;
    g_setup_open = false;
    hooks::new_board(rows, cols);
    g_rows = rows;
    g_cols = cols;
    g_setup_open = true;
    g_declared_rights = 0;
    memset(g_placed, '.', sizeof g_placed);
}

void place(char piece, int r, int c)
{
    hooks::place(piece, Square{r, c});
    if (g_rows == 8 && g_cols == 8)
        g_placed[r][c] = piece;
}

// The castling rights `rights` as a FEN field writes them.
void rights_text(int rights, char out[5])
{
    int n = 0;
    const char letters[] = "KQkq";
    for (int i = 0; i < 4; i++)
        if (rights & (1 << i))
            out[n++] = letters[i];
    if (n == 0)
        out[n++] = '-';
    out[n] = '\0';
}

// The setup is over (a request that is not `PLACE` or `TURN` came): under `standard`, its
// castling rights must be those of its unmoved kings and rooks on their home squares.
void end_setup()
{
    g_setup_open = false;
    if (!g_standard)
        return;
    int implied = 0;
    if (g_rows == 8 && g_cols == 8)
    {
        if (g_placed[7][4] == 'K')
            implied |= (g_placed[7][7] == 'R' ? kWhiteShort : 0) |
                       (g_placed[7][0] == 'R' ? kWhiteLong : 0);
        if (g_placed[0][4] == 'k')
            implied |= (g_placed[0][7] == 'r' ? kBlackShort : 0) |
                       (g_placed[0][0] == 'r' ? kBlackLong : 0);
    }
    if (implied == g_declared_rights)
        return;
    char declared[5], unmoved[5];
    rights_text(g_declared_rights, declared);
    rights_text(implied, unmoved);
    refuse("the setup's castling rights are `%s`, but a placed piece has not moved, so its "
           "kings and rooks on their home squares may castle `%s`: set it up with a FEN whose "
           "castling field is `%s`",
           declared, unmoved, unmoved);
}

// `FEN <placement> [<side> [<castling> [<en passant> ...]]]`: a new board, its pieces
// placed row by row from the top. The side to move must be White and there may be no
// en-passant square (a placed piece has not moved); the castling rights are checked when
// the setup ends.
void serve_fen(const Line &line)
{
    if (line.n < 2 || line.n > 7)
    {
        answer_cstr("ERR bad FEN");
        return;
    }
    // the size: rows split by '/', each as wide as the first
    const Tok &board = line.tok[1];
    int rows = 1, cols = -1, width = 0, run = 0;
    for (size_t i = 0; i <= board.n; i++)
    {
        char ch = i < board.n ? board.p[i] : '/';
        if (ch >= '0' && ch <= '9')
        {
            run = run * 10 + (ch - '0');
            if (run > kMaxDim)
            {
                answer_cstr("ERR bad FEN");
                return;
            }
            continue;
        }
        width += run;
        run = 0;
        if (ch == '/')
        {
            if (width == 0 || (cols >= 0 && width != cols))
            {
                answer_cstr("ERR bad FEN");
                return;
            }
            cols = width;
            width = 0;
            if (i < board.n)
                rows++;
        }
        else if (is_piece_letter(ch))
            width++;
        else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
            refuse("a piece `%c` (a Mystery piece, or a rule file's): the kit places the six "
                   "chess pieces only",
                   ch);
        else
        {
            answer_cstr("ERR bad FEN");
            return;
        }
    }
    if (rows > kMaxDim || cols > kMaxDim)
    {
        answer_cstr("ERR bad board size");
        return;
    }
    int rights = 0;
    if (line.n > 2 && !is(line.tok[2], "w"))
        refuse("Black to move first: the kit sets no side to move (the course's classes "
               "start with White)");
    if (line.n > 3 && !is(line.tok[3], "-"))
        for (size_t i = 0; i < line.tok[3].n; i++)
        {
            const char *at = strchr("KQkq", line.tok[3].p[i]);
            if (at == nullptr || line.tok[3].p[i] == '\0')
                refuse("castling field `%.*s`: the kit knows the rights K, Q, k and q only",
                       static_cast<int>(line.tok[3].n), line.tok[3].p);
            rights |= 1 << (at - "KQkq");
        }
    if (line.n > 4 && !is(line.tok[4], "-"))
        refuse("an en-passant square in the setup (`%.*s`): a placed piece has not moved",
               static_cast<int>(line.tok[4].n), line.tok[4].p);
    new_board(rows, cols);
    g_declared_rights = rights;
    int r = 0, c = 0;
    run = 0;
    for (size_t i = 0; i < board.n; i++)
    {
        char ch = board.p[i];
        if (ch >= '0' && ch <= '9')
            run = run * 10 + (ch - '0');
        else
        {
            c += run;
            run = 0;
            if (ch == '/')
            {
                r++;
                c = 0;
            }
            else
                place(ch, r, c++);
        }
    }
    answer_cstr("OK");
}

// The requests the kit knows but no hook serves, and why.
const char *without_hook(const Tok &cmd)
{
    struct Known
    {
        const char *request;
        const char *why;
    };
    static const Known known[] = {
        {"PLAY", "`move` steps need a refused move's reason, which no hook gives: use "
                 "movePiece steps"},
        {"STATUS", "no hook tells check, mate or stalemate (`status`)"},
        {"STOP", "no hook stops a game (`stop`)"},
        {"SCORE", "no hook counts a score (`score`)"},
        {"MACHINE", "no hook plays a machine move (`machine`)"},
        {"SAVE", "no hook writes a save file (`save`)"},
        {"PERFT", "no hook counts moves (`perft`)"},
        {"DIVIDE", "no hook counts moves (`divide`)"},
    };
    for (const Known &k : known)
        if (is(cmd, k.request))
            return k.why;
    return nullptr;
}

// Whether a request may be served: `ERR bad arguments` unless its arguments are `ok`, then
// `ERR no board` unless there is one.
bool ready(bool ok)
{
    if (!ok)
        answer_cstr("ERR bad arguments");
    else if (g_rows == 0)
        answer_cstr("ERR no board");
    return ok && g_rows > 0;
}

// Serves one request. Student code may throw: the caller turns that into ERR.
void serve(const Line &line)
{
    const Tok *tok = line.tok;
    const Tok &cmd = tok[0];
    size_t n = line.n;

    if (is(cmd, "HELLO"))
    {
        if (n == 2 && is(tok[1], "1"))
            answer_cstr("HELLO 1 chessgrade-kit");
        else if (n == 2 && is(tok[1], "2"))
#ifdef CHESSGRADE_MEMCHECK
            answer_cstr("HELLO 2 caps=scan name=chessgrade-kit-memcheck");
#else
            answer_cstr("HELLO 2 caps=scan,fork name=chessgrade-kit");
#endif
        else
            answer_cstr("ERR unsupported protocol version");
        return;
    }
    if (g_setup_open && !is(cmd, "PLACE") && !is(cmd, "TURN"))
        end_setup();
    if (is(cmd, "RULES"))
    {
        // `RULES <name> [more tokens]`: the name goes to the hook. What may follow changes
        // the rule set (a rule file's `key=value` tokens, a Mystery piece's shape), and the
        // course's classes play their own rules: refused.
        if (n < 2)
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (n > 2)
            refuse("the rule set `%.*s` changed (`%.*s` ...): the course's classes play their own "
                   "rules, which a hook file cannot change",
                   static_cast<int>(tok[1].n), tok[1].p, static_cast<int>(tok[2].n), tok[2].p);
        char name[32];
        if (tok[1].n >= sizeof name)
            refuse("the rule set `%.32s...`", tok[1].p);
        memcpy(name, tok[1].p, tok[1].n);
        name[tok[1].n] = '\0';
        g_standard = false;
        hooks::rules(name);
        g_standard = strcmp(name, "standard") == 0;
        answer_cstr("OK");
        return;
    }
    if (is(cmd, "NEW"))
    {
        int r, c;
        if (n != 3 || !parse_int(tok[1], r) || !parse_int(tok[2], c))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (r < 1 || c < 1 || r > kMaxDim || c > kMaxDim)
        {
            answer_cstr("ERR bad board size");
            return;
        }
        new_board(r, c);
        answer_cstr("OK");
        return;
    }
    if (is(cmd, "FEN"))
    {
        serve_fen(line);
        return;
    }
    if (is(cmd, "PLACE"))
    {
        int r, c;
        if (n != 5 || tok[1].n != 1 || tok[2].n != 1 || !parse_int(tok[3], r) ||
            !parse_int(tok[4], c))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (!is(tok[1], "w") && !is(tok[1], "b"))
        {
            answer_cstr("ERR bad colour");
            return;
        }
        char type = tok[2].p[0];
        if (type >= 'a' && type <= 'z' && !is_piece_letter(type))
            refuse("a piece `%c` (a Mystery piece, or a rule file's): the kit places the six "
                   "chess pieces only",
                   type);
        if (!is_piece_letter(type) || chessgrade::is_white(type))
        {
            answer_cstr("ERR bad piece");
            return;
        }
        if (g_rows == 0)
        {
            answer_cstr("ERR no board");
            return;
        }
        if (!on_board(r, c))
        {
            answer_cstr("ERR square off the board");
            return;
        }
        place(is(tok[1], "w") ? static_cast<char>(type - 'a' + 'A') : type, r, c);
        answer_cstr("OK");
        return;
    }
    if (is(cmd, "TURN"))
    {
        if (!ready(n == 2 && (is(tok[1], "w") || is(tok[1], "b"))))
            return;
        if (is(tok[1], "b"))
            refuse("Black to move first: the kit sets no side to move (the course's classes "
                   "start with White)");
        answer_cstr("OK");
        return;
    }
    if (is(cmd, "VALID") || is(cmd, "MOVE"))
    {
        int a[4];
        if (!ready(n == 5 && parse_int(tok[1], a[0]) && parse_int(tok[2], a[1]) &&
                   parse_int(tok[3], a[2]) && parse_int(tok[4], a[3])))
            return;
        bool valid = is(cmd, "VALID");
        if (valid)
            need(hooks::valid, "valid", "isValidMove: VALID, SCAN VALID");
        // the course never asks about squares off the board (the reference throws there)
        if (!on_board(a[0], a[1]) || !on_board(a[2], a[3]))
        {
            answer_cstr("0");
            return;
        }
        Square from{a[0], a[1]}, to{a[2], a[3]};
        bool ok = valid ? hooks::valid(from, to) : hooks::try_move(from, to);
        answer_cstr(ok ? "1" : "0");
        return;
    }
    if (is(cmd, "THREAT"))
    {
        int r, c;
        if (!ready(n == 3 && parse_int(tok[1], r) && parse_int(tok[2], c)))
            return;
        need(hooks::threatened, "threatened", "isPieceUnderThreat: THREAT, SCAN THREAT");
        if (!on_board(r, c))
        {
            answer_cstr("0");
            return;
        }
        answer_cstr(hooks::threatened(Square{r, c}) ? "1" : "0");
        return;
    }
    if (is(cmd, "SCAN"))
    {
        if (!ready(n == 2 && (is(tok[1], "VALID") || is(tok[1], "THREAT"))))
            return;
        if (is(tok[1], "VALID"))
            scan_valid();
        else
            scan_threat();
        return;
    }
    if (is(cmd, "UNDO") || is(cmd, "REDO"))
    {
        if (!ready(n == 1))
            return;
        bool undo = is(cmd, "UNDO");
        if (undo)
            need(hooks::undo, "undo", "UNDO");
        else
            need(hooks::redo, "redo", "REDO");
        answer_cstr((undo ? hooks::undo() : hooks::redo()) ? "1" : "0");
        return;
    }
    if (is(cmd, "BOARD"))
    {
        if (!ready(n == 1))
            return;
        put_str(g_ans, "BOARD ");
        for (int r = 0; r < g_rows; r++)
        {
            if (r > 0)
                put_char(g_ans, '/');
            for (int c = 0; c < g_cols; c++)
                put_char(g_ans, piece_at(r, c));
        }
        put_char(g_ans, '\n');
        return;
    }
    if (const char *why = without_hook(cmd))
        refuse("%s", why);
    answer_cstr("ERR unknown request");
}

// What a line asks of the loop that read it.
enum Action
{
    kServed, // answered (or refused) here
    kBegin,  // `BEGIN` outside a session: the front hands the scenario over
    kEnd,    // `END` in a session: the child flushes and exits 0
    kQuit,   // `QUIT`: flush and exit 0
};

// The control requests (`BEGIN`, `END`, `QUIT`) of a tokenized line, else kServed.
Action control(const Line &line, bool in_session)
{
    if (line.n != 1)
        return kServed;
    if (is(line.tok[0], "QUIT"))
        return kQuit;
    if (is(line.tok[0], "BEGIN") && !in_session)
        return kBegin;
    if (is(line.tok[0], "END") && in_session)
        return kEnd;
    return kServed;
}

// Tokenizes and serves one line, unless it is a control request for the caller.
Action handle_line(const char *p, size_t len, bool in_session)
{
    Line line;
    tokenize(p, len, line);
    if (line.n == 0)
    {
        answer_cstr("ERR unknown request");
        return kServed;
    }
    Action act = control(line, in_session);
    if (act != kServed)
        return act;
    if (line.n == 1 && is(line.tok[0], "BEGIN"))
    {
        answer_cstr("ERR already in a session");
        return kServed;
    }
    if (line.n == 1 && is(line.tok[0], "END"))
    {
        answer_cstr("ERR not in a session");
        return kServed;
    }
    // an exception thrown halfway through an answer (BOARD) takes the half back
    size_t mark = g_ans.len;
    try
    {
        serve(line);
    }
    catch (const Refusal &refusal)
    {
        g_ans.len = mark;
        put_str(g_ans, "ERR unsupported: ");
        put_line_text(refusal.why);
    }
    catch (const HookError &error)
    {
        g_ans.len = mark;
        put_str(g_ans, "ERR hook ");
        put_str(g_ans, error.hook);
        put_str(g_ans, ": ");
        put_line_text(error.what);
    }
    catch (const std::exception &e)
    {
        g_ans.len = mark;
        answer_exception(e.what());
    }
    catch (const char *s)
    {
        g_ans.len = mark;
        answer_exception(s);
    }
    catch (const std::string &s)
    {
        g_ans.len = mark;
        answer_exception(s.c_str());
    }
    catch (...)
    {
        g_ans.len = mark;
        answer_cstr("ERR exception: unknown");
    }
    return kServed;
}

// ---------------------------------------------------------------------------------------
// the zygote and its children

// front -> zygote: a scenario to run; `len` bytes of requests (read after `BEGIN`) follow.
// The zygote passes the same header and bytes on to the child.
struct Order
{
    uint32_t magic;
    uint32_t len;
};
const uint32_t kOrderMagic = 0x4e494745; // "EGIN"

// zygote -> front: how the scenario's child ended.
struct Report
{
    int32_t kind; // one of the below
    int32_t value;
};
const int32_t kChildEnded = 0;   // value: its raw wait status
const int32_t kForkFailed = 1;   // value: errno (no child ran)
const int32_t kReapFailed = 2;   // value: errno
const int32_t kZygoteGone = 3;   // (the front's own: the zygote did not answer)

pid_t g_zygote = -1;   // in the front: the zygote, -1 if there is none
int g_zygote_ctl = -1; // in the front: orders to the zygote
int g_zygote_rep = -1; // in the front: reports from the zygote
int g_zygote_errno = 0; // in the front: why there is no zygote

// In the zygote: the spare child forked ahead and the write end of its private pipe.
pid_t g_spare = -1;
int g_go = -1;
int g_spare_errno = 0;

// In the zygote: forks the spare. Returns, in the spare, the read end of its private pipe;
// in the zygote -1 (g_spare is -1 and g_spare_errno says why if the fork failed).
int fork_spare(int ctl, int rep)
{
    int go[2];
    if (pipe2(go, O_CLOEXEC) < 0)
    {
        g_spare_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0)
    {
        g_spare_errno = errno;
        close(go[0]);
        close(go[1]);
        return -1;
    }
    if (pid == 0)
    {
        close(go[1]);
        close(ctl);
        close(rep);
        g_spare_errno = 0; // the zygote's history, not the child's
        return go[0];
    }
    close(go[0]);
    g_spare = pid;
    g_go = go[1];
    return -1;
}

// Reads and drops `left` bytes of an order; false if the front is gone.
bool skip_order(int ctl, size_t left, char *buf, size_t size)
{
    while (left > 0)
    {
        size_t n = read_full(ctl, buf, left < size ? left : size);
        if (n == 0)
            return false;
        left -= n;
    }
    return true;
}

// The zygote's loop: no heap, only syscalls and this stack frame. Never returns in the
// zygote (it exits when the front closes `ctl`); returns in each child, with the read end of
// its private pipe, which then serves the scenario (child_main).
int zygote_loop(int ctl, int rep)
{
    char buf[16384];
    int mine = fork_spare(ctl, rep);
    if (mine >= 0)
        return mine;
    for (;;)
    {
        Order order;
        if (read_full(ctl, &order, sizeof order) != sizeof order || order.magic != kOrderMagic)
        {
            // the front quit (or is gone): the spare ends quietly at end of file
            if (g_spare >= 0)
            {
                close(g_go);
                reap(g_spare, nullptr);
            }
            _exit(0);
        }
        // the order's header and its first requests go to the spare in one write; a spare
        // that is gone (nothing of the student's ran in it: its pipe has no reader) is
        // replaced by a fresh one
        size_t first = order.len < sizeof buf ? order.len : sizeof buf;
        if (read_full(ctl, buf, first) != first)
            _exit(0); // the front is gone; so is its sandbox
        bool handed = g_spare >= 0 && write_two(g_go, &order, sizeof order, buf, first);
        if (g_spare >= 0 && !handed)
        {
            close(g_go);
            g_go = -1;
            reap(g_spare, nullptr);
            g_spare = -1;
        }
        if (g_spare < 0)
        {
            mine = fork_spare(ctl, rep);
            if (mine >= 0)
                return mine;
            handed = g_spare >= 0 && write_two(g_go, &order, sizeof order, buf, first);
        }
        Report report = {kChildEnded, 0};
        int status = 0;
        if (g_spare < 0)
        {
            if (!skip_order(ctl, order.len - first, buf, sizeof buf))
                _exit(0);
            report = Report{kForkFailed, g_spare_errno};
        }
        else
        {
            // the rest of the requests; should the child be gone meanwhile, they are dropped
            // and its wait status reported
            size_t left = order.len - first;
            while (left > 0)
            {
                size_t n = read_full(ctl, buf, left < sizeof buf ? left : sizeof buf);
                if (n == 0)
                    _exit(0);
                if (handed)
                    handed = write_full(g_go, buf, n);
                left -= n;
            }
            close(g_go);
            g_go = -1;
            if (reap(g_spare, &status))
                report = Report{kChildEnded, status};
            else
                report = Report{kReapFailed, errno};
            g_spare = -1;
        }
        if (!write_full(rep, &report, sizeof report))
            _exit(0);
        // the next scenario's child, forked while the grader judges this one
        mine = fork_spare(ctl, rep);
        if (mine >= 0)
            return mine;
    }
}

// In the front, before any request is read: forks the zygote. Returns in the zygote's
// children only (see zygote_loop), with their private pipe.
int start_zygote()
{
    int ctl[2], rep[2];
    if (pipe2(ctl, O_CLOEXEC) < 0)
    {
        g_zygote_errno = errno;
        return -1;
    }
    if (pipe2(rep, O_CLOEXEC) < 0)
    {
        g_zygote_errno = errno;
        close(ctl[0]);
        close(ctl[1]);
        return -1;
    }
    flush_student_output(); // what a static initialiser printed is printed once
    pid_t pid = fork();
    if (pid < 0)
    {
        g_zygote_errno = errno;
        close(ctl[0]);
        close(ctl[1]);
        close(rep[0]);
        close(rep[1]);
        return -1;
    }
    if (pid == 0)
    {
        close(ctl[1]);
        close(rep[0]);
        return zygote_loop(ctl[0], rep[1]);
    }
    close(ctl[0]);
    close(rep[1]);
    g_zygote = pid;
    g_zygote_ctl = ctl[1];
    g_zygote_rep = rep[0];
    return -1;
}

// In the front, at its end: the zygote ends its spare and exits (end of file on its orders).
void stop_zygote()
{
    if (g_zygote < 0)
        return;
    close(g_zygote_ctl);
    close(g_zygote_rep);
    reap(g_zygote, nullptr);
    g_zygote = -1;
}

// Does the complete line [p, p + len) end the session's requests (`END` or `QUIT`)?
bool ends_session(const char *p, size_t len)
{
    Line line;
    tokenize(p, len, line);
    Action act = control(line, true);
    return act == kEnd || act == kQuit;
}

// A child: reads its whole scenario (the requests the front had read, from the zygote, then
// the rest from the grader's pipe up to `END` or `QUIT` or end of file), then serves it and
// exits. Reading first and flushing only at points the answers fix make the heap and the
// stack that student code sees the same however the requests arrived.
[[noreturn]] void child_main(int go)
{
    // the order and its first requests, usually in one read
    Order order;
    struct iovec iov[2] = {{&order, sizeof order}, {g_req.data, g_req.cap}};
    ssize_t r;
    do
        r = readv(go, iov, 2);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        _exit(0); // a spare that no scenario came to: nothing of the student's ran
    size_t got = static_cast<size_t>(r);
    if (got < sizeof order)
    {
        size_t rest = sizeof order - got;
        if (read_full(go, reinterpret_cast<char *>(&order) + got, rest) != rest)
            _exit(0);
        got = 0;
    }
    else
        got -= sizeof order;
    if (order.magic != kOrderMagic || got > order.len)
        _exit(0);
    g_req.len = got;
    reserve(g_req, order.len);
    size_t rest = order.len - got;
    if (read_full(go, g_req.data + got, rest) != rest)
        _exit(0);
    g_req.len = order.len;
    close(go);

    // the session ends at the first complete `END` / `QUIT` line
    size_t scanned = 0; // lines before this are not the end
    size_t end = 0;     // past the ending line, once found
    bool found = false;
    bool eof = false;
    for (;;)
    {
        while (!found)
        {
            const char *nl = static_cast<const char *>(
                memchr(g_req.data + scanned, '\n', g_req.len - scanned));
            if (nl == nullptr)
                break;
            size_t at = static_cast<size_t>(nl - g_req.data);
            if (ends_session(g_req.data + scanned, at - scanned))
            {
                found = true;
                end = at + 1;
            }
            scanned = at + 1;
        }
        if (found || eof)
            break;
        // grow only when full: the sizes depend on the bytes, not on how they came
        if (g_req.len == g_req.cap)
            reserve(g_req, g_req.cap + 1);
        ssize_t n = read(g_in, g_req.data + g_req.len, g_req.cap - g_req.len);
        if (n > 0)
            g_req.len += static_cast<size_t>(n);
        else if (n < 0 && errno == EINTR)
            continue;
        else
            eof = true; // end of requests (or an error): serve what came
    }
    if (!found)
        end = g_req.len;

    scrub_stack();
    errno = 0;
    size_t pos = 0;
    while (pos < end)
    {
        const char *p = g_req.data + pos;
        const char *nl = static_cast<const char *>(memchr(p, '\n', end - pos));
        size_t len = nl ? static_cast<size_t>(nl - p) : end - pos;
        pos += len + 1;
        Action act = handle_line(p, len, true);
        if (act == kEnd || act == kQuit)
            break;
        if (g_ans.len - g_anspos >= kEagerWrite)
        {
            flush_all();
            scrub_stack();
        }
    }
    flush_all();
    quit(0);
}

// `BEGIN` in the front: the zygote's child serves the scenario (the requests after `BEGIN`
// already read go with the order; the child reads the rest itself), then the front answers
// how it ended.
void begin_session()
{
    flush_all();
    flush_student_output();
    Report report = {kZygoteGone, 0};
    if (g_zygote < 0)
        report = Report{kForkFailed, g_zygote_errno};
    else
    {
        size_t len = g_req.len - g_reqpos;
        Order order = {kOrderMagic, static_cast<uint32_t>(len)};
        bool sent = write_two(g_zygote_ctl, &order, sizeof order, g_req.data + g_reqpos, len);
        if (!sent || read_full(g_zygote_rep, &report, sizeof report) != sizeof report)
            report = Report{kZygoteGone, 0};
    }
    // the requests read after `BEGIN` were the child's
    g_req.len = 0;
    g_reqpos = 0;

    if (report.kind == kForkFailed)
    {
        put_str(g_ans, "ERR fork: ");
        answer_cstr(strerror(report.value));
        return;
    }
    if (report.kind == kZygoteGone)
    {
        answer_cstr("ERR fork: the fork server's zygote is gone");
        return;
    }
    int status = report.value;
    put_str(g_ans, "ENDED ");
    if (report.kind != kChildEnded)
        put_str(g_ans, "exit -1");
    else if (WIFEXITED(status))
    {
        put_str(g_ans, "exit ");
        put_int(g_ans, WEXITSTATUS(status));
    }
    else if (WIFSIGNALED(status))
    {
        const char *name = signal_name(WTERMSIG(status));
        put_str(g_ans, "signal ");
        if (name)
            put_str(g_ans, name);
        else
        {
            put_str(g_ans, "signal_");
            put_int(g_ans, WTERMSIG(status));
        }
    }
    else
        put_str(g_ans, "exit -1");
    put_char(g_ans, '\n');
    flush_all(); // the grader reads ENDED while the zygote forks the next child
}

// The front's end: everything answered, the zygote and its spare gone, exit 0. When memory
// is checked, the board is deleted first (its destructor runs, as in the course's tests) and
// what is still allocated then is leaked (LeakSanitizer checks here; valgrind at the exit).
[[noreturn]] void finish()
{
    flush_all();
    stop_zygote();
#ifdef CHESSGRADE_MEMCHECK
    try
    {
        if (hooks::end_board)
            hooks::end_board();
    }
    catch (...)
    {
    }
    flush_student_output();
    if (__lsan_do_recoverable_leak_check)
        __lsan_do_recoverable_leak_check();
#endif
    quit(0);
}

int run()
{
    setup_fds();
    install_crash_flush();
    // every buffer exists before the zygote: its children start with the same mappings
    reserve(g_req, kBufInitial);
    reserve(g_ans, kBufInitial);
    reserve(g_scan, kBufInitial);
#ifndef CHESSGRADE_MEMCHECK
    int go = start_zygote();
    if (go >= 0)
        child_main(go);
#endif

    for (;;)
    {
        // answer every complete request we hold
        for (;;)
        {
            const char *p = g_req.data + g_reqpos;
            const char *nl =
                static_cast<const char *>(memchr(p, '\n', g_req.len - g_reqpos));
            if (nl == nullptr)
                break;
            size_t len = static_cast<size_t>(nl - p);
            g_reqpos += len + 1;
            Action act = handle_line(p, len, false);
            if (act == kQuit)
                finish();
            if (act == kBegin)
                begin_session(); // the rest of the buffer was the child's
            if (g_ans.len - g_anspos >= kEagerWrite && !write_some())
                quit(1);
#if defined(CHESSGRADE_MEMCHECK) && !defined(__SANITIZE_ADDRESS__)
            flush_all(); // valgrind stops at an error without a word to us
#endif
        }
        if (g_reqpos > 0)
        {
            memmove(g_req.data, g_req.data + g_reqpos, g_req.len - g_reqpos);
            g_req.len -= g_reqpos;
            g_reqpos = 0;
        }

        // about to block on input: send everything we have (never blocks: non-blocking fd)
        if (!write_some())
            quit(1);
        struct pollfd p[2];
        p[0] = {g_in, POLLIN, 0};
        p[1] = {g_out, POLLOUT, 0};
        nfds_t np = (g_anspos < g_ans.len) ? 2 : 1;
        int r = poll(p, np, -1);
        if (r < 0)
        {
            if (errno == EINTR)
                continue;
            quit(1);
        }
        if (np == 2 && (p[1].revents & (POLLERR | POLLNVAL)))
            quit(1); // the grader is gone or the student closed our descriptor
        if (p[0].revents & POLLNVAL)
            quit(1);
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
        {
            reserve(g_req, g_req.len + kReadChunk);
            ssize_t got = read(g_in, g_req.data + g_req.len, g_req.cap - g_req.len);
            if (got > 0)
                g_req.len += static_cast<size_t>(got);
            else if (got == 0 || (errno != EINTR && errno != EAGAIN))
            {
                // end of requests: serve a last unterminated line, send everything, leave
                if (g_req.len > 0)
                {
                    Action act = handle_line(g_req.data, g_req.len, false);
                    g_req.len = 0;
                    if (act == kBegin)
                        begin_session();
                }
                finish();
            }
        }
    }
}

} // namespace chessgrade_kit

// A hook refuses what the course's classes cannot do (chessgrade_kit.hh).
void chessgrade::unsupported(const char *why) { chessgrade_kit::refuse("%s", why ? why : ""); }

int main() { return chessgrade_kit::run(); }
