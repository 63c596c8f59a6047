// chessgrade adapter kit: the hooks a course writes against its own C++ classes.
//
// The kit (kit_main.cc) speaks the engine protocol (docs/protocol.md): the handshake, the
// fork server whose children all start from the same state, the scans, bounded and
// buffered answers, crash reporting. It reaches the student's classes only through the
// functions below, which one small file of the course's (a "hook file") defines, including
// its own headers. Lab 3's hook file is adapters/lab3-cpp/hooks.cc; seed 004's is
// adapters/design004/hooks.cc; docs/course-classes.md explains them.
//
// Squares are (row, column), 0-based, row 0 the top row (Black's home row on a chess board)
// and column 0 the left one (file a). Pieces are one character, as in the protocol's
// `BOARD`: K Q R B N P for White, k q r b n p for Black.
//
// A hook that cannot do what it is asked because the course's classes cannot express it
// (a board of another size, a piece the course has no class for, another rule set) calls
// chessgrade::unsupported("why"): the scenario is then the staff's problem, reported as
// such with that reason, never a student's failure. A hook that answers outside its
// contract (a piece_at character that is no piece) is reported as the hook file's error.
// Anything student code does inside a hook (a crash, an exception, an endless loop) is the
// student's.

#ifndef CHESSGRADE_KIT_HH
#define CHESSGRADE_KIT_HH

namespace chessgrade
{

struct Square
{
    int row; // 0 = the top row
    int col; // 0 = the left column
};

// The course's classes cannot do what a hook is asked: the kit answers
// `ERR unsupported: <why>` (the text is copied; at most 200 bytes are kept).
[[noreturn]] void unsupported(const char *why);

// Is `piece` (one of "KQRBNPkqrbnp") White's?
constexpr bool is_white(char piece) { return piece >= 'A' && piece <= 'Z'; }
// `piece` as a lower-case letter (its kind, whatever its colour).
constexpr char kind_of(char piece) { return is_white(piece) ? char(piece - 'A' + 'a') : piece; }

namespace hooks
{

// ---- required: a hook file that does not define one of these is refused before any
// upload is built, naming the hook.

// The rule set the scenario is played under: "lab3", "standard", "cuhk" or "jhu". Call
// unsupported() for one the course does not play.
void rules(const char *name);

// A new, empty board of this size (1..256 each way), replacing any earlier one.
void new_board(int rows, int cols);

// Put `piece` ("KQRBNPkqrbnp") at `at` (on the board; an earlier piece there is replaced).
// A placed piece has not moved: it may castle or double-step where its rules allow.
void place(char piece, Square at);

// Try the move from `from` to `to` (both on the board) as a player would: true if it was
// made. A pawn reaching the last row becomes whatever the course's classes make of it.
bool try_move(Square from, Square to);

// What stands at `at`: '.' for nothing, a piece letter, or '?' for a piece of a kind the
// hook does not know (the student's answer, shown as such).
char piece_at(Square at);

// ---- optional: a scenario step that needs one the hook file does not define is the
// staff's problem ("unsupported"), never the student's.

// May the piece at `from` move to `to` now (the course's isValidMove)? The kit asks it
// for every (from, to) pair, row-major, from == to included, for an isValidScan.
bool valid(Square from, Square to) __attribute__((weak));

// Is the piece at `at` under threat (the course's isPieceUnderThreat)? Asked for every
// square, row-major, for an underThreatScan.
bool threatened(Square at) __attribute__((weak));

// Take back the last move / make again the last one taken back: true if there was one.
bool undo() __attribute__((weak));
bool redo() __attribute__((weak));

// Memory checking only (grade --memcheck): the scenario is over, free the board (the
// student's destructors run, so what they do not free is reported as leaked).
void end_board() __attribute__((weak));

} // namespace hooks
} // namespace chessgrade

#endif
