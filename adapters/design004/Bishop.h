// Seed 004's Bishop.
#ifndef BISHOP_H
#define BISHOP_H

#include "Piece.h"

class Bishop : public Piece
{
protected:
    MoveType CanMove(Point p);

public:
    Bishop(Point p, Color c, Board *b);
    bool Attacks(Point p);
};

#endif
