// Seed 004's Piece: what every piece shares.
#ifndef PIECE_H
#define PIECE_H

#include "Chess.h"
#include "Point.h"

class Board;

class Piece
{
protected: // the design says private, but its pieces use them: protected
    Board *board;
    Color color;
    Point location;
    // Added: "when you move a king or a castle, it is noted that that particular piece is no
    // longer eligible for castling" needs a place to note it.
    bool moved;

    // ILLEGAL for illegal moves, ENPASSANT when the move kills a pawn en passant; each piece
    // adds its own rules to the shared ones (on the board, not onto its own colour).
    virtual MoveType CanMove(Point p);
    // Added: are the squares strictly between the location and p empty?
    bool ClearPath(Point p);

public:
    Piece(Point p, Color c, Board *b);
    virtual ~Piece();
    Point GetLocation();
    Color GetColor();
    void SetLocation(Point p);
    void SetLocation(int x, int y);
    bool HasMoved();       // added (see `moved`)
    void SetMoved(bool m); // added
    // Added: does this piece attack p (its capture shape, whatever stands there and whoever
    // is to move)? Check is found with it.
    virtual bool Attacks(Point p) = 0;
    virtual void TryToMove(Point p);
};

#endif
