#!/usr/bin/env python3
"""An independent chess engine speaking the chessgrade protocol, version 2.

Standard library only; it does not call chessgrade. It implements the four rule
sets of docs/rules.md (lab3, standard, cuhk, jhu with the Mystery piece) from their
description, with the `scan` capability: a whole isValidScan / underThreatScan is one
request answered by move generation. Run it as `grade --engine python3 engine.py`.

The board is a dict {(row, col): (color, role)} (sparse: a 256x256 board with five
pieces costs five entries). Colours are 'w' / 'b'; roles 'p n b r q k m'. Row 0 is
Black's home row; White moves towards row 0. Answers are buffered and flushed only
when no further request is waiting.
"""

import os
import sys

ORTH = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAG = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
ALL8 = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
KNIGHT = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
SHAPES = {"n": (KNIGHT, False), "b": (DIAG, True), "r": (ORTH, True),
          "q": (ALL8, True), "k": (ALL8, False)}
SHANNON = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0, "m": 0}
CUHK_VALUES = {"p": 1, "n": 10, "b": 20, "r": 5, "q": 50, "k": 1000, "m": 0}
PREFERENCE = "qrbnkp"  # promotion roles, in the order they are offered

RULE_SETS = {
    # turn-checked validity, king safety, castling, en passant, promotion roles,
    # mate ends the game, king capture ends the game, values, notation
    "lab3": (False, True, "home8x8", False, "", False, False, SHANNON, "uci"),
    "standard": (True, True, "rights", True, "qrbn", True, False, SHANNON, "uci"),
    "cuhk": (True, False, "none", False, "", False, True, CUHK_VALUES, "cuhk"),
    "jhu": (True, True, "none", False, "q", True, False, SHANNON, "jhu"),
}

REASONS = {
    "start": "start position is not on board", "end": "end position is not on board",
    "nopiece": "no piece at start position", "turn": "piece color and turn do not match",
    "shape": "illegal move shape", "own": "cannot capture own piece",
    "capture": "illegal capture shape", "path": "path is not clear",
    "check": "move exposes check", "over": "the game is over", "promo": "illegal promotion",
}


class Refused(Exception):
    pass


def other(color):
    return "b" if color == "w" else "w"


def forward(color):
    return -1 if color == "w" else 1


def sign(x):
    return (x > 0) - (x < 0)


class Rules:
    def __init__(self, name, mystery=None):
        (self.turn_checked, self.king_safety, self.castling, self.en_passant,
         self.promotion, self.mate_ends, self.king_capture_ends, values,
         self.notation) = RULE_SETS[name]
        self.name = name
        self.values = dict(values)
        self.mystery = None  # (vectors, slides)
        if mystery:
            slides, value, offsets = mystery
            vectors = []
            for dr, dc in offsets:
                for a, b in ((dr, dc), (dc, dr)):
                    for v in ((a, b), (-a, b), (a, -b), (-a, -b)):
                        if v not in vectors:
                            vectors.append(v)
            self.mystery = (vectors, slides)
            self.values["m"] = value

    def mystery_reaches(self, dr, dc):
        vectors, slides = self.mystery
        for vr, vc in vectors:
            if not slides:
                if (vr, vc) == (dr, dc):
                    return True
                continue
            k = int(dr / vr) if vr != 0 else int(dc / vc)
            if k >= 1 and (vr * k, vc * k) == (dr, dc):
                return True
        return False


class Position:
    def __init__(self, rules, rows, cols):
        self.rules, self.rows, self.cols = rules, rows, cols
        self.board = {}
        self.turn = "w"
        self.touched = set()  # squares a move has left or entered (Lab 3 castling)
        self.rights = {}  # (color, side) -> rook column; side 'k' or 'q'
        self.ep = None

    def on(self, r, c):
        return 0 <= r < self.rows and 0 <= c < self.cols

    def home(self, color):
        return 0 if color == "b" else self.rows - 1

    # -- attacks ---------------------------------------------------------------

    def attacks(self, frm, piece, sq, ignore=None):
        """Does `piece` on `frm` attack `sq` (with `ignore` seen as empty)?"""
        color, role = piece
        dr, dc = sq[0] - frm[0], sq[1] - frm[1]
        if role == "p":
            return dr == forward(color) and abs(dc) == 1
        if role == "m":
            if self.rules.mystery is None:
                return False
            vectors, slides = self.rules.mystery
        else:
            vectors, slides = SHAPES[role]
        if not slides:
            return (dr, dc) in vectors
        if (dr, dc) == (0, 0) or not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
            return False
        step = (sign(dr), sign(dc))
        if step not in vectors:
            return False
        r, c = frm[0] + step[0], frm[1] + step[1]
        while (r, c) != sq:
            if (r, c) in self.board and (r, c) != ignore:
                return False
            r, c = r + step[0], c + step[1]
        return True

    def attacked(self, sq, by, ignore=None):
        for frm, piece in self.board.items():
            if piece[0] == by and frm != ignore and self.attacks(frm, piece, sq, ignore):
                return True
        return False

    def kings(self, color):
        return [sq for sq, p in self.board.items() if p == (color, "k")]

    def in_check(self):
        return any(self.attacked(k, other(self.turn)) for k in self.kings(self.turn))

    # -- moves: (from, to, kind, extra); kind n normal, d double step,
    #    e en passant (extra: captured square), p promotion (extra: role),
    #    c castle (extra: (rook_from, rook_to)) ---------------------------------

    def pseudo(self, frm, piece):
        color, role = piece
        out = []
        if role == "p":
            return self.pawn_moves(frm, color)
        if role == "m":
            if self.rules.mystery is None:
                return out
            vectors, slides = self.rules.mystery
        else:
            vectors, slides = SHAPES[role]
        for dr, dc in vectors:
            r, c = frm
            while True:
                r, c = r + dr, c + dc
                if not self.on(r, c):
                    break
                target = self.board.get((r, c))
                if target is None or target[0] != color:
                    out.append((frm, (r, c), "n", None))
                if not slides or target is not None:
                    break
        if role == "k":
            out.extend(self.castles(frm, color))
        return out

    def pawn_moves(self, frm, color):
        out = []
        f = forward(color)
        last = self.rows - 1 if color == "b" else 0
        promo = self.rules.promotion

        def push(to):
            if to[0] == last and promo:
                for role in PREFERENCE:
                    if role in promo:
                        out.append((frm, to, "p", role))
            else:
                out.append((frm, to, "n", None))

        one = (frm[0] + f, frm[1])
        if self.on(*one) and one not in self.board:
            push(one)
            two = (one[0] + f, one[1])
            start = (frm[0] == 1) if color == "b" else (frm[0] == self.rows - 2)
            if (self.on(*two) and two not in self.board and (two[0] != last or not promo)
                    and start):
                out.append((frm, two, "d", None))
        for dc in (-1, 1):
            to = (frm[0] + f, frm[1] + dc)
            if not self.on(*to):
                continue
            target = self.board.get(to)
            if target is not None:
                if target[0] != color:
                    push(to)
            elif self.rules.en_passant and self.ep == to:
                captured = (frm[0], to[1])
                if self.board.get(captured) == (other(color), "p"):
                    out.append((frm, to, "e", captured))
        return out

    def castles(self, king, color):
        out = []
        home = self.home(color)
        if king[0] != home or self.rules.castling == "none":
            return out
        for side in ("k", "q"):
            if self.rules.castling == "home8x8":
                if (self.rows, self.cols) != (8, 8) or king[1] != 4 or king in self.touched:
                    return out
                corner = 7 if side == "k" else 0
                rook_col = None if (home, corner) in self.touched else corner
            else:
                rook_col = self.rights.get((color, side))
            if rook_col is None:
                continue
            on_side = rook_col > king[1] if side == "k" else rook_col < king[1]
            if not on_side or self.board.get((home, rook_col)) != (color, "r"):
                continue
            if self.cols < 5:
                continue
            king_to, rook_to = (self.cols - 2, self.cols - 3) if side == "k" else (2, 3)

            def span(a, b):
                return range(min(a, b), max(a, b) + 1)

            clear = all(c in (king[1], rook_col) or (home, c) not in self.board
                        for c in list(span(king[1], king_to)) + list(span(rook_col, rook_to)))
            safe = all(not self.attacked((home, c), other(color), ignore=king)
                       for c in span(king[1], king_to) if c != king_to or c == king[1])
            if clear and safe:
                out.append((king, (home, king_to), "c", ((home, rook_col), (home, rook_to))))
        return out

    def make(self, mv):
        frm, to, kind, extra = mv
        piece = self.board.pop(frm)
        captured = None
        if kind == "c":
            rook = self.board.pop(extra[0])
            self.board[to] = piece
            self.board[extra[1]] = rook
        elif kind == "e":
            self.board[to] = piece
            captured = self.board.pop(extra, None)
        else:
            captured = self.board.pop(to, None)
            self.board[to] = (piece[0], extra) if kind == "p" else piece
        return captured

    def unmake(self, mv, captured):
        frm, to, kind, extra = mv
        if kind == "c":
            rook = self.board.pop(extra[1])
            self.board[frm] = self.board.pop(to)
            self.board[extra[0]] = rook
            return
        piece = self.board.pop(to)
        self.board[frm] = (piece[0], "p") if kind == "p" else piece
        if kind == "e":
            self.board[extra] = captured
        elif captured is not None:
            self.board[to] = captured

    def safe(self, mv, color):
        """Does `mv` leave every king of `color` unattacked (if it has any)?"""
        if not self.rules.king_safety or not self.kings(color):
            return True
        captured = self.make(mv)
        ok = not any(self.attacked(k, other(color)) for k in self.kings(color))
        self.unmake(mv, captured)
        return ok

    def moves_of(self, frm):
        piece = self.board[frm]
        moves = [m for m in self.pseudo(frm, piece) if self.safe(m, piece[0])]
        return sorted(moves, key=lambda m: m[1])  # stable: promotions keep their order

    def generate(self, colors):
        out = []
        for frm in sorted(self.board):
            if self.board[frm][0] in colors:
                out.extend(self.moves_of(frm))
        return out

    def legal_moves(self):
        return self.generate((self.turn,))

    def valid_moves(self):
        return self.generate((self.turn,) if self.rules.turn_checked else ("b", "w"))

    def find_move(self, frm, to, promotion):
        piece = self.board.get(frm)
        if piece is None or (self.rules.turn_checked and piece[0] != self.turn):
            return None
        for m in self.pseudo(frm, piece):
            if m[1] == to and self.safe(m, piece[0]):
                if promotion is None or (m[2] == "p" and m[3] == promotion):
                    return m
        return None

    def play(self, mv):
        frm, to, kind, extra = mv
        record = (mv, None, self.turn, dict(self.rights), self.ep, set(self.touched))
        mover = self.board[frm]
        captured = self.make(mv)
        squares = [frm, to] + (list(extra) if kind == "c" else [])
        self.touched.update(squares)
        if mover[1] == "k":
            self.rights.pop((mover[0], "k"), None)
            self.rights.pop((mover[0], "q"), None)
        for sq in squares:
            for color in ("b", "w"):
                if sq[0] == self.home(color):
                    for side in ("k", "q"):
                        if self.rights.get((color, side)) == sq[1]:
                            del self.rights[(color, side)]
        self.ep = ((frm[0] + to[0]) // 2, frm[1]) if kind == "d" and self.rules.en_passant else None
        self.turn = other(self.turn)
        return (mv, captured) + record[2:]

    def undo(self, record):
        mv, captured, turn, rights, ep, touched = record
        self.unmake(mv, captured)
        self.turn, self.rights, self.ep, self.touched = turn, rights, ep, touched

    def status(self):
        if not self.rules.mate_ends or self.legal_moves():
            return "check" if self.in_check() else "ongoing"
        return ("checkmate " + ("white" if self.turn == "b" else "black")
                if self.in_check() else "stalemate")

    # -- refusals, in JHU's order --------------------------------------------

    def check_move(self, frm, to, promotion):
        if frm is None:
            raise Refused("start")
        if to is None:
            raise Refused("end")
        piece = self.board.get(frm)
        if piece is None:
            raise Refused("nopiece")
        if piece[0] != self.turn:
            raise Refused("turn")
        mv = self.find_move(frm, to, promotion)
        if mv is not None:
            return mv
        ep = self.rules.en_passant and self.ep == to
        target = self.board.get(to)
        if target is None and not self.shape_allows(piece, frm, to, ep):
            raise Refused("shape")
        if target is not None and target[0] == piece[0]:
            raise Refused("own")
        if target is not None and not self.shape_allows(piece, frm, to, True):
            raise Refused("capture")
        if not self.path_clear(piece, frm, to):
            raise Refused("path")
        if promotion is not None and self.find_move(frm, to, None) is not None:
            raise Refused("promo")
        castle_like = piece[1] == "k" and abs(frm[1] - to[1]) > 1
        if self.rules.king_safety and not castle_like:
            raise Refused("check")
        raise Refused("promo" if promotion is not None else "shape")

    def shape_allows(self, piece, frm, to, capture):
        color, role = piece
        dr, dc = to[0] - frm[0], to[1] - frm[1]
        adr, adc = abs(dr), abs(dc)
        if role == "p":
            f = forward(color)
            if capture:
                return dr == f and adc == 1
            start = (frm[0] == 1) if color == "b" else (frm[0] == self.rows - 2)
            return dc == 0 and (dr == f or (dr == 2 * f and start))
        if role == "n":
            return (adr, adc) in ((1, 2), (2, 1))
        if role == "b":
            return adr == adc and adr > 0
        if role == "r":
            return (adr == 0) != (adc == 0)
        if role == "q":
            return (adr == adc and adr > 0) or ((adr == 0) != (adc == 0))
        if role == "k":
            return max(adr, adc) == 1 or (adr == 0 and self.rules.castling != "none"
                                          and not capture)
        return self.rules.mystery is not None and self.rules.mystery_reaches(dr, dc)

    def path_clear(self, piece, frm, to):
        role = piece[1]
        if role == "k" or role == "n":
            return True
        if role == "m" and not (self.rules.mystery and self.rules.mystery[1]):
            return True
        dr, dc = to[0] - frm[0], to[1] - frm[1]
        steps = max(abs(dr), abs(dc))
        sr, sc = sign(dr), sign(dc)
        return all((frm[0] + sr * k, frm[1] + sc * k) not in self.board for k in range(1, steps))

    def perft(self, depth):
        if depth == 0:
            return 1
        total = 0
        for mv in self.legal_moves():
            record = self.play(mv)
            total += self.perft(depth - 1)
            self.undo(record)
        return total


def file_name(col):
    n, letters = col + 1, ""
    while n > 0:
        n -= 1
        letters = chr(ord("a") + n % 26) + letters
        n //= 26
    return letters


def square_name(pos, sq):
    return "%s%d" % (file_name(sq[1]), pos.rows - sq[0])


def uci(pos, mv):
    frm, to, kind, extra = mv
    if kind == "c" and abs(frm[1] - to[1]) != 2:
        to = extra[0]
    return square_name(pos, frm) + square_name(pos, to) + (extra if kind == "p" else "")


def notation(pos, mv):
    frm, to = mv[0], mv[1]
    if pos.rules.notation == "jhu":
        return (square_name(pos, frm) + square_name(pos, to)).upper()
    if pos.rules.notation == "cuhk":
        cell = lambda s: "%s%d" % (file_name(s[1]), s[0] + 1)  # noqa: E731
        return ("%s %s" % (cell(frm), cell(to))).upper()
    return uci(pos, mv)


def from_fen(rules, fen):
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise ValueError("a FEN has 4 to 6 fields")
    rows = []
    for text in fields[0].split("/"):
        row, digits = [], ""
        for ch in text + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                row.extend([None] * int(digits))
                digits = ""
            if ch != "/":
                if ch.lower() not in "pnbrqkm":
                    raise ValueError("bad piece `%s`" % ch)
                row.append(("w" if ch.isupper() else "b", ch.lower()))
        rows.append(row)
    pos = Position(rules, len(rows), len(rows[0]))
    for r, row in enumerate(rows):
        for c, piece in enumerate(row):
            if piece:
                pos.board[(r, c)] = piece
    pos.turn = fields[1]
    for ch in "" if fields[2] == "-" else fields[2]:
        color = "w" if ch.isupper() else "b"
        home = pos.home(color)
        kings = [c for c in range(pos.cols) if pos.board.get((home, c)) == (color, "k")]
        king = kings[0] if len(kings) == 1 else None
        is_rook = lambda c: pos.board.get((home, c)) == (color, "r")  # noqa: E731
        low = ch.lower()
        if low in "kq":
            side, col = low, None
            if king is not None:
                cands = (range(pos.cols - 1, king, -1) if low == "k" else range(0, king))
                col = next((c for c in cands if is_rook(c)), None)
        else:
            col = ord(low) - ord("a")
            side = "k" if king is not None and col > king else "q"
            if king is None or not is_rook(col) or col == king:
                side, col = "k", None
        if col is None:
            pos.rights.pop((color, side), None)
        else:
            pos.rights[(color, side)] = col
    if fields[3] != "-":
        f = "".join(ch for ch in fields[3] if ch.isalpha())
        col = 0
        for ch in f:
            col = col * 26 + ord(ch) - ord("a") + 1
        pos.ep = (pos.rows - int(fields[3][len(f):]), col - 1)
    return pos


class SplitMix64:
    GAMMA = 0x9E3779B97F4A7C15
    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed & self.MASK

    def next(self):
        self.state = (self.state + self.GAMMA) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def skip(self, n):
        self.state = (self.state + self.GAMMA * n) & self.MASK


class Game:
    def __init__(self, pos):
        self.pos, self.done, self.undone, self.ended = pos, [], [], None

    def is_over(self):
        return self.ended is not None or (self.pos.rules.mate_ends
                                          and not self.pos.legal_moves())

    def play(self, mv):
        record = self.pos.play(mv)
        self.done.append(record)
        if record[1] is not None and record[1][1] == "k" and self.pos.rules.king_capture_ends:
            winner = "white" if other(self.pos.turn) == "w" else "black"
            self.ended = ("king-captured " + winner, len(self.done))

    def try_move(self, frm, to, promotion):
        if self.is_over():
            raise Refused("over")
        mv = self.pos.check_move(frm, to, promotion)
        self.play(mv)
        self.undone = []
        return mv

    def undo(self):
        if not self.done:
            return False
        record = self.done.pop()
        self.pos.undo(record)
        self.undone.append(record[0])
        if self.ended is not None and self.ended[1] > len(self.done):
            self.ended = None
        return True

    def redo(self):
        if not self.undone:
            return False
        mv = self.undone.pop()
        try:
            legal = not self.is_over() and self.pos.check_move(
                mv[0], mv[1], mv[3] if mv[2] == "p" else None) is not None
        except Refused:
            legal = False
        if legal:
            self.play(mv)
        else:
            self.undone.append(mv)
        return legal

    def status(self):
        return self.ended[0] if self.ended else self.pos.status()

    def scores(self):
        s = {"w": 0, "b": 0}
        for color, role in self.pos.board.values():
            s[color] += self.pos.rules.values[role]
        return s

    def stop(self):
        if not self.is_over():
            s = self.scores()
            winner = "white" if s["w"] > s["b"] else "black" if s["b"] > s["w"] else "draw"
            self.ended = ("stopped " + winner, len(self.done))
        return self.status()

    def machine(self, seed):
        pos = self.pos
        if self.is_over():
            return None
        targets = {}
        for m in pos.legal_moves():
            targets.setdefault((m[0], m[1]), m)
        movable = {frm for frm, _ in targets}
        pieces = [sq for sq in sorted(pos.board) if pos.board[sq][0] == pos.turn]
        rng = SplitMix64(seed)
        for _ in range(10 * len(pieces)):
            frm = pieces[rng.below(len(pieces))]
            if frm not in movable:
                rng.skip(2 * 4096)
                continue
            for _ in range(4096):
                to = (rng.below(pos.rows), rng.below(pos.cols))
                mv = targets.get((frm, to))
                if mv is not None:
                    self.play(mv)
                    self.undone = []
                    return mv
        pos.turn, pos.ep = other(pos.turn), None
        return None

    def save(self):
        pos = self.pos
        lines = []
        for r in range(pos.rows):
            row = ""
            for c in range(pos.cols):
                p = pos.board.get((r, c))
                row += "-" if p is None else (p[1].upper() if p[0] == "w" else p[1])
            lines.append(row)
        return lines + [pos.turn]


class Engine:
    def __init__(self):
        self.rules = Rules("lab3")
        self.setup = None  # the position being set up
        self.game = None

    def current(self):
        if self.game is None:
            if self.setup is None:
                raise ValueError("no board: send NEW or FEN first")
            self.game, self.setup = Game(self.setup), None
        return self.game

    def board_line(self):
        pos = self.current().pos
        rows = []
        for r in range(pos.rows):
            chars = []
            for c in range(pos.cols):
                p = pos.board.get((r, c))
                chars.append("." if p is None else (p[1].upper() if p[0] == "w" else p[1]))
            rows.append("".join(chars))
        return "BOARD " + "/".join(rows)

    def handle(self, t):
        """The answer lines to one request (tokens `t`)."""
        cmd, n = t[0], len(t)
        num = int
        if cmd == "HELLO":
            if t[1:] == ["2"]:
                return ["HELLO 2 caps=scan name=python-engine"]
            if t[1:] == ["1"]:
                return ["HELLO 1 python-engine"]
            return ["ERR unsupported protocol version"]
        if cmd == "RULES":
            mystery = None
            if n > 2:
                if t[2] != "mystery":
                    raise ValueError("bad rules")
                offsets = [tuple(int(x) for x in o.split(",")) for o in t[5:]]
                mystery = (t[3] == "slider", int(t[4]), offsets)
            self.rules = Rules(t[1], mystery)
            return ["OK"]
        if cmd == "NEW":
            self.setup, self.game = Position(self.rules, num(t[1]), num(t[2])), None
            return ["OK"]
        if cmd == "FEN":
            self.setup, self.game = from_fen(self.rules, " ".join(t[1:])), None
            return ["OK"]
        if cmd == "PLACE":
            pos = self.setup
            r, c = num(t[3]), num(t[4])
            if pos is None or not pos.on(r, c):
                raise ValueError("no board, or a square off it")
            pos.board[(r, c)] = (t[1], t[2])
            return ["OK"]
        if cmd == "TURN":
            self.setup.turn = t[1]
            return ["OK"]
        game = self.current()
        pos = game.pos
        if cmd in ("VALID", "MOVE"):
            a = [num(x) for x in t[1:5]]
            frm, to = (a[0], a[1]), (a[2], a[3])
            if not (pos.on(*frm) and pos.on(*to)):
                return ["0"]
            if cmd == "VALID":
                return ["1" if pos.find_move(frm, to, None) else "0"]
            try:
                game.try_move(frm, to, None)
                return ["1"]
            except Refused:
                return ["0"]
        if cmd == "THREAT":
            sq = (num(t[1]), num(t[2]))
            p = pos.board.get(sq)
            return ["1" if p and pos.attacked(sq, other(p[0])) else "0"]
        if cmd == "BOARD":
            return [self.board_line()]
        if cmd == "SCAN" and t[1:] == ["VALID"]:
            # one line per (from, to): a promotion's roles are one pair
            pairs = list(dict.fromkeys(m[0] + m[1] for m in pos.valid_moves()))
            return ["SCAN %d" % len(pairs)] + ["%d %d %d %d" % p for p in pairs]
        if cmd == "SCAN" and t[1:] == ["THREAT"]:
            hits = [sq for sq in sorted(pos.board) if pos.attacked(sq, other(pos.board[sq][0]))]
            return ["SCAN %d" % len(hits)] + ["%d %d" % sq for sq in hits]
        if cmd == "PLAY":
            frm = None if t[1] == "-" else (num(t[1]), num(t[2]))
            to = None if t[3] == "-" else (num(t[3]), num(t[4]))
            promotion = t[5] if n > 5 else None
            try:
                game.try_move(frm, to, promotion)
                return ["OK"]
            except Refused as r:
                return ["REFUSED " + REASONS[r.args[0]]]
        if cmd == "UNDO":
            return ["1" if game.undo() else "0"]
        if cmd == "REDO":
            return ["1" if game.redo() else "0"]
        if cmd == "STATUS":
            return ["STATUS " + game.status()]
        if cmd == "SCORE":
            s = game.scores()
            return ["SCORE %d %d" % (s["w"], s["b"])]
        if cmd == "STOP":
            return ["STATUS " + game.stop()]
        if cmd == "MACHINE":
            mv = game.machine(num(t[1]))
            return ["MACHINE " + ("none" if mv is None else notation(pos, mv))]
        if cmd == "SAVE":
            lines = game.save()
            return ["SAVE %d" % len(lines)] + lines
        if cmd == "PERFT":
            return ["PERFT %d" % pos.perft(num(t[1]))]
        if cmd == "DIVIDE":
            depth = num(t[1])
            out = []
            if depth > 0:
                for mv in pos.legal_moves():
                    record = pos.play(mv)
                    out.append((uci(pos, mv), pos.perft(depth - 1)))
                    pos.undo(record)
            out.sort()
            return ["DIVIDE %d" % len(out)] + ["%s %d" % o for o in out]
        return ["ERR unknown request"]


def requests():
    """Request lines from fd 0; the output is flushed whenever the next line is
    not already buffered (the engine would block on input)."""
    buf = b""
    while True:
        nl = buf.find(b"\n")
        if nl < 0:
            sys.stdout.flush()
            chunk = os.read(0, 1 << 16)
            if not chunk:
                if buf:
                    yield buf.decode("utf-8", "replace")
                return
            buf += chunk
            continue
        line, buf = buf[:nl], buf[nl + 1:]
        yield line.decode("utf-8", "replace")


def main():
    engine = Engine()
    out = sys.stdout
    for line in requests():
        tokens = line.split()
        if not tokens:
            out.write("ERR empty request\n")
            continue
        if tokens == ["QUIT"]:
            break
        try:
            answers = engine.handle(tokens)
        except (ValueError, IndexError, KeyError, TypeError, AttributeError) as e:
            answers = ["ERR %s" % (str(e) or type(e).__name__)]
        out.write("\n".join(answers) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
