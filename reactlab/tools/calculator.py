"""A safe calculator for agents: arithmetic plus max, min, abs and round, never `eval`.

`calculator(text)` parses the text with `ast` and walks a whitelisted tree: numbers, the
operators + - * / // % ** and parentheses, and calls of four functions, `max(...)`, `min(...)`,
`abs(x)` and `round(x)` / `round(x, digits)`. Every step is bounded (1000 characters, 100
levels of parentheses, integers below 10**1000, exponents checked *before* they are computed),
so any input of <= 1000 characters ends quickly with a number or a ValueError whose message
tells the model what to write instead; longer input is refused before any work. Nothing
recurses: 500 chained calls `1()()()…` are refused with a sentence, not a RecursionError.
Model and keyboard habits are accepted: `^` means power (2^10 -> 1024; there is no XOR), ×, ÷,
full-width digits and superscripts (2³).

Deliberately NOT here: variables, other functions (sqrt, log, sin: write x ** 0.5), keyword or
starred arguments, lists, comparisons, complex numbers, units, arbitrary precision decimals.
`round` rounds halves away from zero as taught in school (round(2.5) -> 3), not like Python's
round (banker's rounding, 2). `calculator` is a `Tool` (registered with `@tool`), and calling it
calls the function: `from reactlab.tools import calculator; calculator("306 * 5") -> 1530`.
Inside an agent it is bounded twice: the registry refuses an expression over 1000 characters
before it runs, and the function itself refuses one too (a direct call from Python).

Introduced in notebook 05, as the last step of the savings chain get_today -> days_between ->
calculator ("今天是几号…每天存 5 元").

About 340 lines because a safe evaluator is mostly its refusals: every node type, operator and
function it accepts has a bound and a sentence for the model when it does not.
"""

from __future__ import annotations

import ast
import math
import re
import threading
import warnings
from collections import deque
from decimal import ROUND_HALF_UP, Context, Decimal

from reactlab.tools.registry import shown, tool

MAX_EXPRESSION_CHARS = 1000
MAX_DIGITS = 1000  # integers stay below 10**1000, during evaluation and in the result
MAX_NESTING = 100  # parentheses, calls included; Python's own parser gives up at 200
MAX_ROUND_DIGITS = 12  # results are shown with 12 significant digits anyway
_INT_LIMIT = 10**MAX_DIGITS
_MAX_BITS = _INT_LIMIT.bit_length()

# name -> (fewest, most arguments; None = no upper limit), and how to call it
FUNCTIONS = {"max": (1, None), "min": (1, None), "abs": (1, 1), "round": (1, 2)}
_COUNTS = {"max": "1 or more arguments", "min": "1 or more arguments",
           "abs": "exactly 1 argument", "round": "1 or 2 arguments"}
_FORMS = {"max": "max(a, b, ...)", "min": "min(a, b, ...)", "abs": "abs(x)",
          "round": "round(x) or round(x, digits)"}
_EXAMPLES = {"max": "max(3, 7, 5)", "min": "min(3, 7, 5)", "abs": "abs(-3)",
             "round": "round(3.14159, 2)"}
_TAKES = ("numbers, + - * / // % ** and parentheses, and the functions max, min, abs and round, "
          "e.g. 306 * 5 or max(3, 7)")

# Model and keyboard habits: full-width ＡＳＣＩＩ (U+FF01..FF5E), ×, ÷, minus signs, ^ for power.
_CHARS = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_CHARS.update({ord("×"): "*", ord("÷"): "/", ord("−"): "-", ord("–"): "-", ord("·"): "*",
               ord("\u3000"): " ", ord("^"): "**"})
_PARSE_LOCK = threading.Lock()
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.USub: "-", ast.UAdd: "+"}
_REFUSED = {ast.Name: "names are not allowed, only numbers",
            ast.Attribute: "attributes are not allowed",
            ast.Subscript: "indexing is not allowed",
            ast.Tuple: "commas are not allowed (write 1000, not 1,000; one expression per call)",
            ast.Compare: "comparisons are not supported", ast.BoolOp: "and/or are not supported"}


def _normalise(expression: str) -> str:
    """Example: "３０６ × 5 =" -> "306 * 5"; "2³" -> "2**(3)"; "2^10" -> "2**10"."""
    text = re.sub("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+", lambda m: f"**({m.group().translate(_SUPERSCRIPT)})",
                  expression)
    text = " ".join(text.translate(_CHARS).split()).rstrip("= ")
    for i, ch in enumerate(text):
        if not ch.isascii():
            raise ValueError(f"unexpected character {ch!r} at position {i}: the calculator "
                             f"takes {_TAKES}.")
    return text


def _digits(a: int, b: int) -> str:
    """Rough digit count of a**b for a message. Example: (9, 387420489) -> "about 369,693,100"."""
    if b.bit_length() > 60:
        return "astronomically many"
    return f"about {int(b * math.log10(abs(a))) + 1:,}"


def _power(a: float, b: float) -> float:
    if isinstance(a, int) and isinstance(b, int):
        if a in (0, 1, -1):  # cheap whatever the exponent
            if a == 0 and b < 0:
                raise ZeroDivisionError
            value = 0 if a == 0 and b > 0 else (-1 if a == -1 and b % 2 else 1)
            return float(value) if b < 0 else value
        if b < -100_000:
            return 0.0  # |a| >= 2: far below the smallest float
        if b > 0 and (a.bit_length() - 1) * b > _MAX_BITS:
            raise ValueError(f"exponent too large: {a if a.bit_length() < 40 else 'a huge number'}"
                             f" ** {b if b.bit_length() < 40 else 'a huge exponent'} would have "
                             f"{_digits(a, b)} digits; the calculator stops at {MAX_DIGITS}.")
    return a**b


def _apply(op: ast.AST, a: float, b: float) -> float:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        if isinstance(a, int) and isinstance(b, int) and \
                a.bit_length() + b.bit_length() > _MAX_BITS + 1:
            raise ValueError(f"result too large: more than {MAX_DIGITS} digits.")
        return a * b
    if isinstance(op, ast.Pow):
        return _power(a, b)
    if b == 0:
        raise ZeroDivisionError
    if isinstance(op, ast.Div):
        return a / b
    return a // b if isinstance(op, ast.FloorDiv) else a % b


def _round(x: float, digits: int) -> float:
    """Round halves away from zero. Example: (2.675, 2) -> 2.68 (Python's round gives 2.67)."""
    if isinstance(x, int) or abs(x) >= 2**52:  # ints, and floats this large, are already whole
        return x
    # from the shortest repr, so 2.675 is the 2.675 the model wrote, not 2.67499999…; at most
    # 16 + 12 digits, so prec=40 never makes quantize fail
    rounded = Decimal(repr(x)).quantize(Decimal(f"1e-{digits}"), rounding=ROUND_HALF_UP,
                                        context=Context(prec=40))
    return float(rounded)


def _call(name: str, args: list[int | float]) -> int | float:
    """One whitelisted function; the argument count was checked before evaluation."""
    if name == "max":
        return max(args)
    if name == "min":
        return min(args)
    if name == "abs":
        return abs(args[0])
    digits = args[1] if len(args) == 2 else 0
    if isinstance(digits, float) and digits.is_integer() and abs(digits) < 2**53:
        digits = int(digits)  # round(x, 4 / 2): the calculator itself says 4 / 2 -> 2
    if type(digits) is not int or not 0 <= digits <= MAX_ROUND_DIGITS:
        shown = digits if type(digits) is not int or digits.bit_length() < 40 else "a huge number"
        raise ValueError(f"round's digits must be a whole number from 0 to {MAX_ROUND_DIGITS}: "
                         f"round(x) or round(x, digits), e.g. round(3.14159, 2); got {shown}.")
    return _round(args[0], digits)


def _check(value: object) -> float:
    if isinstance(value, complex):
        raise ValueError(  # noqa: TRY004  (the contract: a number or a ValueError)
            "the result is a complex number (a negative number to a fractional power); the "
            "calculator only does real numbers.")
    if isinstance(value, int) and abs(value) >= _INT_LIMIT:
        raise ValueError(f"result too large: more than {MAX_DIGITS} digits.")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("result too large for a float (beyond about 1.8e308)." if
                         not math.isnan(value) else "the result is not a number.")
    return value  # type: ignore[return-value]


def _evaluate(tree: ast.Expression) -> int | float:
    """Post-order walk with an explicit stack, so 500 chained operators need no recursion."""
    stack: list[tuple[ast.AST, bool]] = [(tree.body, False)]
    values: list[int | float] = []
    while stack:
        node, ready = stack.pop()
        if isinstance(node, ast.Constant):
            values.append(_check(node.value))
        elif not ready:
            stack.append((node, True))
            if isinstance(node, ast.BinOp):
                stack += [(node.right, False), (node.left, False)]
            elif isinstance(node, ast.Call):  # arguments left to right
                stack += [(arg, False) for arg in reversed(node.args)]
            else:
                stack.append((node.operand, False))  # type: ignore[attr-defined]
        elif isinstance(node, ast.BinOp):
            right, left = values.pop(), values.pop()
            values.append(_check(_apply(node.op, left, right)))
        elif isinstance(node, ast.Call):
            args = values[len(values) - len(node.args):]
            del values[len(values) - len(node.args):]
            values.append(_check(_call(node.func.id, args)))  # type: ignore[attr-defined]
        else:
            operand = values.pop()
            values.append(-operand if isinstance(node.op, ast.USub) else +operand)  # type: ignore
    return values[0]


def _refuse_call(node: ast.Call, source: str) -> str | None:
    """Why a call is not allowed (a whole sentence), or None for a whitelisted call."""
    func = node.func
    if not isinstance(func, ast.Name):
        # the source text, not ast.unparse: unparse recurses and 330 chained calls `1()()…`
        # would end in a RecursionError
        shown = ast.get_source_segment(source, func) or "this"
        shown = shown if len(shown) <= 30 else shown[:30] + "…"
        why = "attributes are not allowed" if isinstance(func, ast.Attribute) else \
            "it is not a function"
        return (f"{shown}(...) cannot be called ({why}): the only functions are max, min, abs "
                "and round, e.g. max(3, 7).")
    name = func.id
    if name not in FUNCTIONS:
        return (f"unknown function {name[:30]!r}: the calculator knows only max, min, abs and "
                "round. Write other maths with + - * / // % **, e.g. 2 ** 0.5 for a square root.")
    example = _EXAMPLES[name]
    if node.keywords:
        kw = node.keywords[0].arg
        given = f"{kw}=..." if kw else "**..."
        return (f"keyword arguments are not allowed: pass plain numbers, e.g. {example}, "
                f"not {name}(..., {given}).")
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        return f"starred arguments are not allowed: write the numbers out, e.g. {example}."
    if any(isinstance(arg, (ast.List, ast.Tuple, ast.Set)) for arg in node.args):
        return f"{name} takes numbers, not a list: write {example}, not {name}([...])."
    fewest, most = FUNCTIONS[name]
    count = len(node.args)
    if count < fewest or (most is not None and count > most):
        return f"{name} takes {_COUNTS[name]}: {_FORMS[name]}; got {count or 'none'}."
    return None


def _refuse(node: ast.AST) -> str | None:
    """Why a node is not allowed, or None. Every node type not listed here is refused too."""
    if isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp)):
        op = getattr(node, "op", None)
        if op is not None and type(op) not in _OPS:
            sym = {ast.BitAnd: "&", ast.BitOr: "|", ast.LShift: "<<", ast.RShift: ">>",
                   ast.Invert: "~", ast.Not: "not", ast.MatMult: "@"}.get(type(op), "?")
            return f"the operator {sym!r} is not supported"
        return None
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, complex):
            return "complex numbers are not supported"
        if isinstance(v, bool) or not isinstance(v, (int, float)):  # True, None, ..., b"…"
            return f"{v!r:.30} is not a number"
        if isinstance(v, int) and abs(v) >= _INT_LIMIT:
            return f"a number has more than {MAX_DIGITS} digits"
        if isinstance(v, float) and not math.isfinite(v):
            return "a number is too large for a float"
        return None
    if isinstance(node, (ast.operator, ast.unaryop)):
        return None
    return _REFUSED.get(type(node), f"{type(node).__name__} is not allowed")


def _validate(tree: ast.Expression, source: str) -> None:
    """Raise ValueError at the first node (outermost first, like ast.walk) that is not allowed.

    A whitelisted call's function name and keywords are checked by _refuse_call and not walked,
    so the only Name nodes ever reached are refused ones.
    """
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        if isinstance(node, ast.Call):
            sentence = _refuse_call(node, source)
            if sentence:
                raise ValueError(sentence)
            todo.extend(node.args)
            continue
        if isinstance(node, ast.Name) and node.id in FUNCTIONS:  # "max + 1": forgot the call
            raise ValueError(f"{node.id} is a function: call it with numbers in parentheses, "
                             f"e.g. {_EXAMPLES[node.id]}.")
        reason = _refuse(node)
        if reason:
            raise ValueError(f"{reason}: the calculator takes {_TAKES}.")
        todo.extend(ast.iter_child_nodes(node))


@tool(name="calculator", max_chars=MAX_EXPRESSION_CHARS)
def calculator(expression: str) -> int | float:
    """Evaluate an arithmetic expression exactly: operators + - * / // % ** and parentheses,
    functions max, min, abs, round(x, digits). An average: (a + b + c) / 3 with your numbers.

    Args:
        expression: the arithmetic to do, with the numbers written out, e.g. 8 * 125 or
            max(a, b) - min(a, b)

    Returns an int when the result is whole (306 * 5 -> 1530, 10 / 2 -> 5), else a float
    rounded to 12 significant digits (0.1 + 0.2 -> 0.3). `^` means power (2^10 -> 1024);
    ×, ÷ and full-width characters are accepted. ValueError for anything else.
    Example: calculator("306 * 5") -> 1530
    """
    if isinstance(expression, (int, float)) and not isinstance(expression, bool):
        if isinstance(expression, int) and expression.bit_length() > _MAX_BITS:
            raise ValueError(f"a number has more than {MAX_DIGITS} digits.")
        expression = str(expression)
    if not isinstance(expression, str):
        # ValueError, not TypeError: the calculator's contract is "a number or a ValueError"
        raise ValueError(  # noqa: TRY004
            f"expression must be text like '306 * 5', got {shown(expression, 60)}.")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"expression too long ({len(expression)} characters; the limit is "
                         f"{MAX_EXPRESSION_CHARS}).")
    text = _normalise(expression)
    if not text:
        raise ValueError("empty expression: pass arithmetic such as 306 * 5.")
    depth = deepest = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise ValueError(f"too deeply nested: more than {MAX_NESTING} levels of parentheses.")
    if any(ch in text for ch in "'\"\\"):  # before parsing: escape sequences make warnings
        raise ValueError(f"text in quotes is not allowed: the calculator takes {_TAKES}.")
    try:
        # "1and 2" makes the parser print a SyntaxWarning; silence it. catch_warnings swaps a
        # process-wide filter list, so the lock keeps parallel tool calls from interleaving.
        with _PARSE_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"could not read {expression!r:.80} as arithmetic ({exc.msg}). Write "
                         "it like 306 * 5 or (100 + 20) / 3.") from None
    except (ValueError, RecursionError, MemoryError, OverflowError):
        raise ValueError("the expression is too complex to read.") from None
    _validate(tree, text)
    try:
        value = _evaluate(tree)
    except ZeroDivisionError:
        raise ValueError("division by zero.") from None
    except (ArithmeticError, RecursionError, MemoryError):  # OverflowError is an ArithmeticError
        raise ValueError("result too large for the calculator.") from None
    if isinstance(value, float):
        value = float(f"{value:.12g}")  # 0.1 + 0.2 -> 0.3, not 0.30000000000000004
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value
