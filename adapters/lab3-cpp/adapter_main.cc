// chessgrade protocol adapter for Lab 3 C++ submissions (protocol v1 and v2, docs/protocol.md).
//
// Build (the grader does this; this file does not include any student header, so its object
// is compiled once per machine and cached; adapter_glue.cc is compiled with each submission):
//   g++ -std=c++17 -g -Wall -c adapter_main.cc
//   g++ -std=c++17 -g -Wall -c adapter_glue.cc -I<student dir>
//   g++ -o engine adapter_main.o adapter_glue.o <student .o files except main.cc's>
//
// The adapter speaks the protocol on PRIVATE copies of the original stdin/stdout. Before any
// student code runs (constructor priority 101, ahead of the student's static initialisers),
// fd 0 and fd 1 are duplicated to private descriptors, fd 1 is pointed at fd 2 (so every
// std::cout / printf of the student lands on stderr) and fd 0 at /dev/null.
//
// v2 capabilities (declared in the handshake):
//   scan  `SCAN VALID` / `SCAN THREAT` are expanded here, in-process, calling isValidMove /
//         isPieceUnderThreat in exactly the order and number the course grader does; only
//         the true results are sent back.
//   fork  a fork server: each scenario (`BEGIN` ... `END`) is served by a fresh child forked
//         from this ready parent; the parent reaps it and answers `ENDED exit N` or
//         `ENDED signal NAME`. No state leaks between scenarios (statics, leaks, a corrupted
//         heap all die with the child) and exec/startup is paid once. The child for the next
//         scenario is forked as soon as `ENDED` is sent (a "spare", waiting on a private
//         pipe), so the fork overlaps with the grader judging the scenario just ended; at
//         `BEGIN` the parent hands the spare the requests it has already read. The spare is
//         a copy of the same ready parent, so it is exactly the child `BEGIN` would fork.
//
// Answers are buffered and written only when the adapter would block on input (or when the
// buffer is large); a fatal signal or an exit() in student code writes what is pending
// first, so the grader still sees every answer given before the crash.

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace chessgrade_lab3_glue
{
void new_board(int rows, int cols);
bool has_board();
void place(bool white, char type, int row, int col);
bool valid(int r1, int c1, int r2, int c2);
bool move(int r1, int c1, int r2, int c2);
bool threat(int r, int c);
char piece_at(int r, int c);
} // namespace chessgrade_lab3_glue

namespace chessgrade_lab3_adapter
{
namespace glue = chessgrade_lab3_glue;

int g_in = -1;  // private copy of the grader's request pipe
int g_out = -1; // private copy of the grader's answer pipe

const int kMaxDim = 256;
const size_t kEagerWrite = 1 << 16; // write (without blocking) once this much is pending

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
        const char msg[] = "lab3 adapter: stdin/stdout not open\n";
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

// ---------------------------------------------------------------------------------------
// output buffer

std::string g_outbuf;
size_t g_outpos = 0;

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
    while (g_outpos < g_outbuf.size())
    {
        ssize_t n = write(g_out, g_outbuf.data() + g_outpos, g_outbuf.size() - g_outpos);
        if (n > 0)
        {
            g_outpos += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        return false;
    }
    g_outbuf.clear();
    g_outpos = 0;
    return true;
}

// write everything, waiting for the pipe as needed
void flush_all()
{
    while (g_outpos < g_outbuf.size())
    {
        if (!write_some())
            quit(1);
        if (g_outpos < g_outbuf.size())
        {
            struct pollfd p = {g_out, POLLOUT, 0};
            int r = poll(&p, 1, -1);
            if (r < 0 && errno != EINTR)
                quit(1);
            if (r > 0 && (p.revents & (POLLERR | POLLNVAL)))
                quit(1);
        }
    }
}

// Async-signal-safe: on a fatal signal in student code, send the answers given so far
// (blocking writes, no allocation), then die of the same signal.
void on_fatal_signal(int sig)
{
    int fl = fcntl(g_out, F_GETFL);
    if (fl >= 0)
        fcntl(g_out, F_SETFL, fl & ~O_NONBLOCK);
    const char *p = g_outbuf.data() + g_outpos;
    size_t left = g_outbuf.size() - g_outpos;
    while (left > 0)
    {
        ssize_t n = write(g_out, p, left);
        if (n <= 0)
            break;
        p += n;
        left -= static_cast<size_t>(n);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void at_exit_flush()
{
    // a student exit(): pending answers first
    if (g_outpos < g_outbuf.size())
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
        sigaction(sig, &sa, nullptr);
    atexit(at_exit_flush);
}

void answer(const std::string &s)
{
    g_outbuf += s;
    g_outbuf += '\n';
}

void answer_cstr(const char *s)
{
    g_outbuf += s;
    g_outbuf += '\n';
}

// ---------------------------------------------------------------------------------------
// request handling

int g_rows = 0;
int g_cols = 0;
bool g_in_session = false; // a forked child serving one scenario

// Requests read and not served yet: g_inbuf[g_inpos..].
std::string g_inbuf;
size_t g_inpos = 0;

// The spare child forked ahead of the next `BEGIN` (see the header), and the write end of
// its private pipe; -1 when there is none.
pid_t g_spare = -1;
int g_go = -1;

bool parse_int(const std::string &s, int &out)
{
    if (s.empty() || s.size() > 9)
        return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-')
    {
        neg = true;
        i = 1;
        if (s.size() == 1)
            return false;
    }
    long v = 0;
    for (; i < s.size(); i++)
    {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    out = static_cast<int>(neg ? -v : v);
    return true;
}

bool on_board(int r, int c) { return r >= 0 && r < g_rows && c >= 0 && c < g_cols; }

std::string one_line(const char *text)
{
    std::string s = text ? text : "";
    for (char &ch : s)
        if (ch == '\n' || ch == '\r')
            ch = ' ';
    if (s.size() > 200)
        s.resize(200);
    return s;
}

void append_int(std::string &s, int v)
{
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d", v);
    s.append(buf, static_cast<size_t>(n));
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

// isValidMove for every (from, to), both row-major, from == to included: the course
// grader's order and number of calls. Only the true ones are sent.
void scan_valid()
{
    std::string lines;
    size_t count = 0;
    for (int r1 = 0; r1 < g_rows; r1++)
        for (int c1 = 0; c1 < g_cols; c1++)
            for (int r2 = 0; r2 < g_rows; r2++)
                for (int c2 = 0; c2 < g_cols; c2++)
                    if (glue::valid(r1, c1, r2, c2))
                    {
                        count++;
                        append_int(lines, r1);
                        lines += ' ';
                        append_int(lines, c1);
                        lines += ' ';
                        append_int(lines, r2);
                        lines += ' ';
                        append_int(lines, c2);
                        lines += '\n';
                    }
    std::string head = "SCAN ";
    append_int(head, static_cast<int>(count));
    answer(head);
    g_outbuf += lines;
}

// isPieceUnderThreat for every square, row-major.
void scan_threat()
{
    std::string lines;
    size_t count = 0;
    for (int r = 0; r < g_rows; r++)
        for (int c = 0; c < g_cols; c++)
            if (glue::threat(r, c))
            {
                count++;
                append_int(lines, r);
                lines += ' ';
                append_int(lines, c);
                lines += '\n';
            }
    std::string head = "SCAN ";
    append_int(head, static_cast<int>(count));
    answer(head);
    g_outbuf += lines;
}

// Serves one request. Student code may throw: the caller turns that into ERR.
void serve(const std::vector<std::string> &tok)
{
    const std::string &cmd = tok[0];
    size_t n = tok.size();

    if (cmd == "HELLO")
    {
        if (n == 2 && tok[1] == "1")
            answer_cstr("HELLO 1 lab3-cpp-adapter");
        else if (n == 2 && tok[1] == "2")
            answer_cstr("HELLO 2 caps=scan,fork name=lab3-cpp-adapter");
        else
            answer_cstr("ERR unsupported protocol version");
        return;
    }
    if (cmd == "RULES")
    {
        if (n == 2 && tok[1] == "lab3")
            answer_cstr("OK");
        else
            answer_cstr("ERR unsupported rules: a Lab 3 submission plays lab3 only");
        return;
    }
    if (cmd == "NEW")
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
        g_rows = g_cols = 0;
        glue::new_board(r, c);
        g_rows = r;
        g_cols = c;
        answer_cstr("OK");
        return;
    }
    if (cmd == "PLACE")
    {
        int r, c;
        if (n != 5 || tok[1].size() != 1 || tok[2].size() != 1 || !parse_int(tok[3], r) ||
            !parse_int(tok[4], c))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (tok[1] != "w" && tok[1] != "b")
        {
            answer_cstr("ERR bad colour");
            return;
        }
        char type = tok[2][0];
        if (type == 'q' || type == 'n' || type == 'm')
        {
            answer_cstr("ERR unsupported piece");
            return;
        }
        if (type != 'k' && type != 'r' && type != 'b' && type != 'p')
        {
            answer_cstr("ERR bad piece");
            return;
        }
        if (!glue::has_board())
        {
            answer_cstr("ERR no board");
            return;
        }
        if (!on_board(r, c))
        {
            answer_cstr("ERR square off the board");
            return;
        }
        glue::place(tok[1] == "w", type, r, c);
        answer_cstr("OK");
        return;
    }
    if (cmd == "VALID" || cmd == "MOVE")
    {
        int a[4];
        if (n != 5 || !parse_int(tok[1], a[0]) || !parse_int(tok[2], a[1]) ||
            !parse_int(tok[3], a[2]) || !parse_int(tok[4], a[3]))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (!glue::has_board())
        {
            answer_cstr("ERR no board");
            return;
        }
        // the course never asks about squares off the board (the reference throws there)
        if (!on_board(a[0], a[1]) || !on_board(a[2], a[3]))
        {
            answer_cstr("0");
            return;
        }
        bool ok = (cmd == "VALID") ? glue::valid(a[0], a[1], a[2], a[3])
                                   : glue::move(a[0], a[1], a[2], a[3]);
        answer_cstr(ok ? "1" : "0");
        return;
    }
    if (cmd == "THREAT")
    {
        int r, c;
        if (n != 3 || !parse_int(tok[1], r) || !parse_int(tok[2], c))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (!glue::has_board())
        {
            answer_cstr("ERR no board");
            return;
        }
        if (!on_board(r, c))
        {
            answer_cstr("0");
            return;
        }
        answer_cstr(glue::threat(r, c) ? "1" : "0");
        return;
    }
    if (cmd == "SCAN")
    {
        if (n != 2 || (tok[1] != "VALID" && tok[1] != "THREAT"))
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (!glue::has_board())
        {
            answer_cstr("ERR no board");
            return;
        }
        if (tok[1] == "VALID")
            scan_valid();
        else
            scan_threat();
        return;
    }
    if (cmd == "BOARD")
    {
        if (n != 1)
        {
            answer_cstr("ERR bad arguments");
            return;
        }
        if (!glue::has_board())
        {
            answer_cstr("ERR no board");
            return;
        }
        std::string s = "BOARD ";
        for (int r = 0; r < g_rows; r++)
        {
            if (r > 0)
                s += '/';
            for (int c = 0; c < g_cols; c++)
                s += glue::piece_at(r, c);
        }
        answer(s);
        return;
    }
    answer_cstr("ERR unknown request");
}

// Forks the spare child for the next scenario. In the spare (which never returns from
// here until it is handed a scenario) this waits on its private pipe: "G" followed by the
// requests the parent had already read, then end of file. End of file without "G" (the
// server quit or died) ends the spare quietly. Without a spare, `BEGIN` forks as before.
void fork_spare()
{
    int go[2];
    if (pipe2(go, O_CLOEXEC) < 0)
        return;
    flush_all();
    flush_student_output();
    pid_t pid = fork();
    if (pid < 0)
    {
        close(go[0]);
        close(go[1]);
        return;
    }
    if (pid > 0)
    {
        close(go[0]);
        g_spare = pid;
        g_go = go[1];
        return;
    }
    close(go[1]);
    std::string got;
    char buf[65536];
    for (;;)
    {
        ssize_t n = read(go[0], buf, sizeof buf);
        if (n > 0)
            got.append(buf, static_cast<size_t>(n));
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break;
    }
    close(go[0]);
    if (got.empty() || got[0] != 'G')
        _exit(0); // no scenario came: nothing of the student's runs, nothing is written
    g_in_session = true;
    g_inbuf.assign(got, 1, std::string::npos);
    g_inpos = 0;
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

// Ends the spare that will not be used (the server quits).
void drop_spare()
{
    if (g_spare < 0)
        return;
    close(g_go);
    g_go = -1;
    reap(g_spare, nullptr);
    g_spare = -1;
}

// Hands the spare its scenario: the requests after `BEGIN` already read. Returns its pid,
// or -1 (it is gone: then `BEGIN` forks as before).
pid_t hand_over_to_spare()
{
    if (g_spare < 0)
        return -1;
    pid_t pid = g_spare;
    std::string msg = "G";
    msg.append(g_inbuf, g_inpos, std::string::npos);
    const char *p = msg.data();
    size_t left = msg.size();
    while (left > 0)
    {
        ssize_t n = write(g_go, p, left);
        if (n > 0)
        {
            p += n;
            left -= static_cast<size_t>(n);
        }
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break;
    }
    close(g_go);
    g_go = -1;
    g_spare = -1;
    if (left > 0)
    {
        reap(pid, nullptr);
        return -1;
    }
    return pid;
}

// `BEGIN` in the server: a child serves the scenario (the spare, or one forked now).
// Returns true in a child forked now (which goes on with the requests already read); the
// parent reaps the child, answers how it ended, forks the next spare and returns false
// so that the caller drops the requests the child now owns.
bool begin_session()
{
    flush_all();
    flush_student_output();
    pid_t pid = hand_over_to_spare();
    if (pid < 0)
    {
        pid = fork();
        if (pid < 0)
        {
            answer(std::string("ERR fork: ") + strerror(errno));
            return false;
        }
        if (pid == 0)
        {
            g_in_session = true;
            return true;
        }
    }
    int status = 0;
    std::string s = "ENDED ";
    if (!reap(pid, &status))
        s += "exit -1";
    else if (WIFEXITED(status))
    {
        s += "exit ";
        append_int(s, WEXITSTATUS(status));
    }
    else if (WIFSIGNALED(status))
    {
        const char *name = signal_name(WTERMSIG(status));
        s += "signal ";
        if (name)
            s += name;
        else
        {
            s += "signal_";
            append_int(s, WTERMSIG(status));
        }
    }
    else
        s += "exit -1";
    answer(s);
    flush_all(); // the grader reads ENDED while the spare is forked
    fork_spare();
    return false;
}

// Tokenizes and serves one line. Returns false when the rest of the input buffer is no
// longer ours (the parent after a forked session).
bool handle_line(std::string line)
{
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    std::vector<std::string> tok;
    size_t i = 0;
    while (i < line.size())
    {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            i++;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            j++;
        if (j > i)
            tok.push_back(line.substr(i, j - i));
        i = j;
    }
    if (tok.empty())
    {
        answer_cstr("ERR unknown request");
        return true;
    }
    if (tok[0] == "QUIT" && tok.size() == 1)
    {
        flush_all();
        drop_spare();
        quit(0);
    }
    if (tok[0] == "BEGIN" && tok.size() == 1)
    {
        if (g_in_session)
        {
            answer_cstr("ERR already in a session");
            return true;
        }
        return begin_session();
    }
    if (tok[0] == "END" && tok.size() == 1)
    {
        if (!g_in_session)
        {
            answer_cstr("ERR not in a session");
            return true;
        }
        flush_all();
        quit(0);
    }
    try
    {
        serve(tok);
    }
    catch (const std::exception &e)
    {
        answer("ERR exception: " + one_line(e.what()));
    }
    catch (const char *s)
    {
        answer("ERR exception: " + one_line(s));
    }
    catch (const std::string &s)
    {
        answer("ERR exception: " + one_line(s.c_str()));
    }
    catch (...)
    {
        answer_cstr("ERR exception: unknown");
    }
    return true;
}

int run()
{
    setup_fds();
    install_crash_flush();
    std::string &inbuf = g_inbuf;
    size_t &inpos = g_inpos;
    char chunk[65536];
    for (;;)
    {
        // answer every complete request we hold
        for (;;)
        {
            size_t nl = inbuf.find('\n', inpos);
            if (nl == std::string::npos)
                break;
            std::string line = inbuf.substr(inpos, nl - inpos);
            inpos = nl + 1;
            if (!handle_line(line))
            {
                // The parent: the session's child had the rest. A spare that has just been
                // handed its scenario (fork_spare returned in it) holds it in g_inbuf.
                if (!g_in_session)
                    inbuf.clear();
                inpos = 0;
                continue;
            }
            if (g_outbuf.size() - g_outpos >= kEagerWrite && !write_some())
                quit(1);
        }
        inbuf.erase(0, inpos);
        inpos = 0;

        // about to block on input: send everything we have (never blocks: non-blocking fd)
        if (!write_some())
            quit(1);
        struct pollfd p[2];
        p[0] = {g_in, POLLIN, 0};
        p[1] = {g_out, POLLOUT, 0};
        nfds_t np = (g_outpos < g_outbuf.size()) ? 2 : 1;
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
            ssize_t got = read(g_in, chunk, sizeof chunk);
            if (got > 0)
                inbuf.append(chunk, static_cast<size_t>(got));
            else if (got == 0 || (errno != EINTR && errno != EAGAIN))
            {
                // end of requests: serve a last unterminated line, send everything, leave
                if (!inbuf.empty())
                {
                    std::string line = inbuf;
                    inbuf.clear();
                    handle_line(line);
                }
                flush_all();
                drop_spare();
                quit(0);
            }
        }
    }
}

} // namespace chessgrade_lab3_adapter

int main() { return chessgrade_lab3_adapter::run(); }
