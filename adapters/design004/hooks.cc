// Seed 004's hook file: the adapter kit's hooks (chessgrade_kit.hh) over the design's classes
// (the headers beside this file). Graded with
//
//   chessgrade grade --adapter adapters/design004/hooks.cc --submission DIR scenarios/design004
//
// The design's Board starts from the initial position and plays standard chess on 8x8 with
// undo and redo; it has no question "is this piece under threat", so there is no
// `threatened` hook and a scenario that asks one is refused as not gradable.

#include "chessgrade_kit.hh"

#include "Bishop.h"
#include "Board.h"
#include "King.h"
#include "Knight.h"
#include "Pawn.h"
#include "Queen.h"
#include "Rook.h"

#include <cstring>

namespace
{
Board *board = nullptr;

// The kit's rows count from the top (Black's side); the design's y from White's.
Point point(chessgrade::Square s) { return Point(s.col, height - 1 - s.row); }

// CanMove is protected in the design; a class derived from Piece may name it, and the
// pointer it takes calls each piece's own (virtual) CanMove.
struct Ask : Piece
{
    static MoveType can_move(Piece *piece, Point to) { return (piece->*(&Ask::CanMove))(to); }
};
} // namespace

namespace chessgrade::hooks
{

void rules(const char *name)
{
    if (strcmp(name, "standard") != 0)
        unsupported("seed 004's classes play standard chess only");
}

// The design's Board() sets up the initial position: every piece is taken off.
void new_board(int rows, int cols)
{
    if (rows != height || cols != width)
        unsupported("seed 004's Board is 8x8");
    delete board;
    board = new Board();
    for (int x = 0; x < width; x++)
        for (int y = 0; y < height; y++)
        {
            Point p(x, y);
            Piece *piece = board->PieceAt(p);
            board->PlacePieceAt(nullptr, &p);
            delete piece;
        }
}

void place(char piece, Square at)
{
    Point p = point(at);
    Color c = is_white(piece) ? WHITE : BLACK;
    Piece *made = nullptr;
    switch (kind_of(piece))
    {
    case 'k':
        made = new King(p, c, board);
        break;
    case 'q':
        made = new Queen(p, c, board);
        break;
    case 'r':
        made = new Rook(p, c, board);
        break;
    case 'b':
        made = new Bishop(p, c, board);
        break;
    case 'n':
        made = new Knight(p, c, board);
        break;
    default:
        made = new Pawn(p, c, board);
    }
    delete board->PieceAt(p);
    board->PlacePieceAt(made, &p);
}

// TryToMove answers nothing: a move was made when the turn passed.
bool try_move(Square from, Square to)
{
    Color before = board->GetTurn();
    board->TryToMove(point(from), point(to));
    return board->GetTurn() != before;
}

// What TryToMove would do: the side to move's piece, and CanMove says it may.
bool valid(Square from, Square to)
{
    Piece *piece = board->PieceAt(point(from));
    return piece != nullptr && piece->GetColor() == board->GetTurn() &&
           Ask::can_move(piece, point(to)) != ILLEGAL;
}

char piece_at(Square at)
{
    Piece *piece = board->PieceAt(point(at));
    if (piece == nullptr)
        return '.';
    char kind = '?';
    if (dynamic_cast<King *>(piece))
        kind = 'k';
    else if (dynamic_cast<Queen *>(piece))
        kind = 'q';
    else if (dynamic_cast<Rook *>(piece))
        kind = 'r';
    else if (dynamic_cast<Bishop *>(piece))
        kind = 'b';
    else if (dynamic_cast<Knight *>(piece))
        kind = 'n';
    else if (dynamic_cast<Pawn *>(piece))
        kind = 'p';
    if (kind != '?' && piece->GetColor() == WHITE)
        kind = static_cast<char>(kind - 'a' + 'A');
    return kind;
}

bool undo() { return board->UndoLastMove(); }

bool redo() { return board->RedoUndoneMove(); }

// Memory checking: the board is deleted at the end, as a course's tests would, so that what
// the student's destructors do not free is reported as leaked.
void end_board()
{
    delete board;
    board = nullptr;
}

} // namespace chessgrade::hooks
