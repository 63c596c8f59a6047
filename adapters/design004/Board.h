// Seed 004's Board: the pieces on their squares, whose turn it is, the history.
#ifndef BOARD_H
#define BOARD_H

#include "Chess.h"
#include "History.h"
#include "Point.h"

class Piece;

class Board
{
private:
    Piece *the_board[width][height];
    Color turn;
    History *first_history;
    History *last_history; // the last move made; the ones taken back follow it
    Point en_passant;      // the design's `en_passant = NULL`: no square is (-1, -1)
    History *redoing;      // added: the move being made again (RedoUndoneMove)
    friend class History;  // added: an undo puts the turn and en_passant back

public:
    Board(); // creates board with pieces in initial configuration; white's turn
    ~Board();
    Piece *PieceAt(Point p);                // return the piece at location p
    Piece *PieceAt(int x, int y);           // return the piece at location (x,y)
    void PlacePieceAt(Piece *p, Point *pt); // place piece p at location pt
    void Move(Point p1, Point p2);          // move piece at p1 to p2
    void Move(Point p1, Point p2, Point ep); // move piece at p1 to p2, remembering the space
                                             // that was jumped over
    void TryToMove(Point p1, Point p2);
    Point GetEnPassant();

    // Added: what the design's methods need and does not declare.
    Color GetTurn();                  // TryToMove moves only the side to move
    bool IsAttacked(Point p, Color by); // does a piece of `by` attack p?
    bool InCheck(Color c);            // is c's king attacked?
    // Would moving `mover` to `to` (a move of type `mt`) leave its own king attacked?
    bool LeavesKingAttacked(Piece *mover, Point to, MoveType mt);
    void RemovePiece(Point p);                // an en-passant kill, recorded in the history
    void Promote(Point p, Piece *becomes);    // a pawn on the last row, recorded
    void MoveRook(Point from, Point to);      // a castle's rook, recorded
    bool UndoLastMove();   // false if there is no move to undo
    bool RedoUndoneMove(); // false if there is no move to redo
};

#endif
