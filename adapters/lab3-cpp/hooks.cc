// chessgrade Lab 3 hooks: the adapter kit's hooks (adapters/kit/chessgrade_kit.hh) over the
// documented Lab 3 interface: Student::ChessBoard(rows, cols), createChessPiece, movePiece,
// isValidMove, isPieceUnderThreat, getPiece, and ChessPiece::getColor / getType. The only
// file of the Lab 3 adapter that includes the student's headers, compiled with each
// submission; the kit's protocol side is compiled once and cached.
//
// Names are brought in with using-declarations, not `using namespace Student;`: a
// using-declaration in this namespace hides a global name of the same spelling, so a student
// header that also declares a stray global `class ChessPiece;` compiles here exactly as it
// does in the course's build. The enums Color {Black, White} and Type {Pawn, Rook, Bishop,
// King} come from the student's Chess.h; in the course files they are global, and the
// using-directive below still finds them should a student move them into namespace Student
// (the using-declarations win for ChessBoard / ChessPiece).

#include "chessgrade_kit.hh"

#include "ChessBoard.hh"
#include "ChessPiece.hh"

#include <cstring>

namespace Student
{
}

namespace chessgrade::hooks
{
using Student::ChessBoard;
using Student::ChessPiece;
using namespace Student;

namespace
{
ChessBoard *g_board = nullptr;

void delete_board()
{
    ChessBoard *old = g_board;
    g_board = nullptr;
    delete old;
}
} // namespace

void rules(const char *name)
{
    if (strcmp(name, "lab3") != 0)
        unsupported("a Lab 3 submission plays the lab3 rules only");
}

void new_board(int rows, int cols)
{
    delete_board();
    g_board = new ChessBoard(rows, cols);
}

void place(char piece, Square at)
{
    Type t = King;
    switch (kind_of(piece))
    {
    case 'k':
        t = King;
        break;
    case 'r':
        t = Rook;
        break;
    case 'b':
        t = Bishop;
        break;
    case 'p':
        t = Pawn;
        break;
    default:
        unsupported("the Lab 3 interface has no queen or knight");
    }
    g_board->createChessPiece(is_white(piece) ? White : Black, t, at.row, at.col);
}

bool valid(Square from, Square to)
{
    return g_board->isValidMove(from.row, from.col, to.row, to.col);
}

bool try_move(Square from, Square to)
{
    return g_board->movePiece(from.row, from.col, to.row, to.col);
}

bool threatened(Square at) { return g_board->isPieceUnderThreat(at.row, at.col); }

// '?' for a type that is none of the four (a student's getType() answering garbage)
char piece_at(Square at)
{
    ChessPiece *p = g_board->getPiece(at.row, at.col);
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

// The end of a scenario when memory is checked: the board's destructor runs, as it does at
// the end of the course's tests, so that what it does not free is reported as leaked.
void end_board() { delete_board(); }

} // namespace chessgrade::hooks
