// Seed 004's shared names. The design uses Color, MoveType, width and height without
// declaring them; they are declared here, once, for every class.
#ifndef CHESS_H
#define CHESS_H

enum Color
{
    WHITE,
    BLACK
};

// What Piece::CanMove finds a move to be.
enum MoveType
{
    ILLEGAL,
    NORMAL,
    CASTLE,
    DOUBLESTEP,
    ENPASSANT
};

const int width = 8;
const int height = 8;

#endif
