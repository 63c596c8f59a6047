// chessgrade Lab 3 adapter: the only translation unit that includes the student's headers.
//
// adapter_main.cc (the protocol, the fork server, the scans) does not depend on the
// submission, so the grader compiles it once per machine and caches the object; this small
// file is compiled with each submission and bridges to the documented Lab 3 interface:
// Student::ChessBoard(rows, cols), createChessPiece, movePiece, isValidMove,
// isPieceUnderThreat, getPiece, and ChessPiece::getColor / getType.
//
// Names are brought in with using-declarations, not `using namespace Student;`: a
// using-declaration in this namespace hides a global name of the same spelling, so a student
// header that also declares a stray global `class ChessPiece;` compiles here exactly as it
// does in the course's build. The enums Color {Black, White} and Type {Pawn, Rook, Bishop,
// King} come from the student's Chess.h; in the course files they are global, and the
// using-directive below still finds them should a student move them into namespace Student
// (the using-declarations win for ChessBoard / ChessPiece).

#include "ChessBoard.hh"
#include "ChessPiece.hh"

namespace Student
{
}

namespace chessgrade_lab3_glue
{
using Student::ChessBoard;
using Student::ChessPiece;
using namespace Student;

ChessBoard *g_board = nullptr;

void new_board(int rows, int cols)
{
    ChessBoard *old = g_board;
    g_board = nullptr;
    delete old;
    g_board = new ChessBoard(rows, cols);
}

bool has_board() { return g_board != nullptr; }

// The end of a scenario when memory is checked: the board's destructor runs, as it does at
// the end of the course's tests, so that what it does not free is reported as leaked.
void end_board()
{
    ChessBoard *old = g_board;
    g_board = nullptr;
    delete old;
}

// type: one of "kbrp"; white: true for White
void place(bool white, char type, int row, int col)
{
    Type t = King;
    switch (type)
    {
    case 'p':
        t = Pawn;
        break;
    case 'r':
        t = Rook;
        break;
    case 'b':
        t = Bishop;
        break;
    default:
        t = King;
    }
    g_board->createChessPiece(white ? White : Black, t, row, col);
}

bool valid(int r1, int c1, int r2, int c2) { return g_board->isValidMove(r1, c1, r2, c2); }

bool move(int r1, int c1, int r2, int c2) { return g_board->movePiece(r1, c1, r2, c2); }

bool threat(int r, int c) { return g_board->isPieceUnderThreat(r, c); }

// '.' empty, "KRBP" White, "krbp" Black, '?' a type the adapter does not know
char piece_at(int r, int c)
{
    ChessPiece *p = g_board->getPiece(r, c);
    if (p == nullptr)
        return '.';
    char ch = '?';
    Type t = p->getType();
    if (t == Pawn)
        ch = 'p';
    else if (t == Rook)
        ch = 'r';
    else if (t == Bishop)
        ch = 'b';
    else if (t == King)
        ch = 'k';
    if (ch != '?' && p->getColor() == White)
        ch = static_cast<char>(ch - 'a' + 'A');
    return ch;
}

} // namespace chessgrade_lab3_glue
