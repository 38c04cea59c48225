"""Stateless tools every agent can have: the current time, a calculator and unit conversion.

The calculator walks a whitelisted Python AST and never calls `eval`: model-written text is untrusted,
and `eval` (even with empty builtins) can reach the interpreter through attribute chains.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from datetime import datetime
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import ToolError, ToolRetry
from core.tools.base import Tool, tool
from core.tools.toolset import Toolset
from core.tools.units import UNIT_PATTERN, convert, named_for, unit_named

_MAX_EXPRESSION_CHARS = 500
# Bounds that keep one expression from eating the CPU or memory: 2**100_000 is fine, 9**9**9 is not.
_MAX_RESULT_BITS = 100_000
_MAX_FACTORIAL = 1000
_MAX_EXACT_BITS = 13_000  # about 3,900 digits: below the 4,300 Python prints (sys.get_int_max_str_digits)

_BINARY_OPS: MappingProxyType[type[ast.operator], Callable[[Any, Any], Any]] = MappingProxyType(
    {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod,
        ast.Pow: operator.pow,
    }
)
_UNARY_OPS: MappingProxyType[type[ast.unaryop], Callable[[Any], Any]] = MappingProxyType(
    {ast.UAdd: operator.pos, ast.USub: operator.neg}
)
_FUNCTIONS: MappingProxyType[str, Callable[..., Any]] = MappingProxyType(
    {
        "abs": abs,
        "round": round,
        "min": min,
        "max": max,
        "sqrt": math.sqrt,
        "exp": math.exp,
        "log": math.log,
        "log10": math.log10,
        "log2": math.log2,
        "sin": math.sin,
        "cos": math.cos,
        "tan": math.tan,
        "asin": math.asin,
        "acos": math.acos,
        "atan": math.atan,
        "atan2": math.atan2,
        "floor": math.floor,
        "ceil": math.ceil,
        "hypot": math.hypot,
        "degrees": math.degrees,
        "radians": math.radians,
        "factorial": lambda n: math.factorial(_small_int(n)),
    }
)
_CONSTANTS: MappingProxyType[str, float] = MappingProxyType({"pi": math.pi, "e": math.e, "tau": math.tau})


# What makes a message call for each tool, for small models that would otherwise call any tool offered.
TIME_HINT = r"\b(time|date|day|today|tomorrow|yesterday|clock|weekday|week|month|year|timezone|o'clock)\b"
MATH_HINT = (
    r"\d\s*[-+*/^%x×÷]\s*\d|\b(calculate|compute|sqrt|square root|percent|sum of|product of|"
    r"times|divided|plus|minus|multiplied)\b"
)
UNITS_HINT = (
    rf"\bconvert\b|\bhow many (?:{UNIT_PATTERN})\b"
    rf"|\d\s*(?:{UNIT_PATTERN})\s+(?:in|to|into)\s+(?:{UNIT_PATTERN})\b"
)


@tool(use_when=TIME_HINT)
def current_time(timezone: str = "UTC") -> str:
    """Tell the current date, time and weekday in a time zone.

    Args:
        timezone: IANA time-zone name such as "UTC", "Europe/Paris" or "America/New_York", or "local"
            for this computer's own.
    """
    if timezone.strip().lower() == "local":
        now = datetime.now().astimezone()
        return f"{now:%Y-%m-%d %H:%M:%S} {now.tzname()} ({now:%A}), UTC offset {now:%z}"
    try:
        zone = ZoneInfo(timezone.strip() or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolRetry(
            f"unknown time zone {timezone!r}; use an IANA name such as 'UTC' or 'Europe/Paris'"
        ) from exc
    now = datetime.now(zone)
    return f"{now:%Y-%m-%d %H:%M:%S} {now.tzname()} ({now:%A}), UTC offset {now:%z}"


@tool(use_when=MATH_HINT)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression exactly and return the number.

    Supports + - * / // % ** and parentheses, the constants pi, e and tau, and the functions abs, round,
    min, max, sqrt, exp, log, log10, log2, sin, cos, tan, asin, acos, atan, atan2, floor, ceil, hypot,
    degrees, radians and factorial. Angles are in radians.

    Args:
        expression: The expression, for example "(3 + 4) * 2 ** 10 / sqrt(2)".
    """
    return format_number(evaluate(expression))


@tool(use_when=UNITS_HINT)
def convert_units(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a quantity between units of length, mass, volume, speed, area, time or temperature.

    Args:
        value: The number to convert, for example 10.
        from_unit: Its unit, by name or symbol: "miles", "km", "kg", "lb", "°F", "litres", "mph".
        to_unit: The unit wanted, by name or symbol.
    """
    source, target = unit_named(from_unit), unit_named(to_unit)
    before, after = _rounded(value), _rounded(convert(float(value), source, target))
    quantity = f"{format_number(before)} {named_for(before, source)}"
    return f"{quantity} = {format_number(after)} {named_for(after, target)}"


def _rounded(value: float) -> float:
    """A measurement to five significant digits, as people quote one (16.093 km, not 16.09344 km)."""
    return float(f"{value:.5g}") if abs(value) < 1e5 else float(round(value))


def builtin_tools() -> tuple[Tool, ...]:
    """The built-in stateless tools, in the order they are offered."""
    return (current_time, calculator, convert_units)


BUILTIN_NAMES = frozenset(tool.name for tool in builtin_tools())


def builtin_toolset() -> Toolset:
    """A toolset with the built-in stateless tools."""
    return Toolset(builtin_tools())


def evaluate(expression: str) -> int | float:
    """Evaluate an arithmetic expression through the whitelisted AST walker.

    Raises ToolRetry for text that is not a valid expression and ToolError for anything outside the
    whitelist or too large to compute.
    """
    text = expression.strip()
    if not text:
        raise ToolRetry("the expression is empty")
    if len(text) > _MAX_EXPRESSION_CHARS:
        raise ToolError(f"the expression is longer than {_MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ToolRetry(f"not a valid arithmetic expression ({exc.msg}); use Python syntax") from exc
    try:
        result = _eval_node(tree.body)
    except ZeroDivisionError as exc:
        raise ToolError("division by zero") from exc
    except OverflowError as exc:
        raise ToolError("the result is too large") from exc
    except (ValueError, TypeError) as exc:
        raise ToolError(f"math error: {exc}") from exc
    if isinstance(result, float) and math.isnan(result):
        raise ToolError("the result is not a number (an undefined operation such as inf - inf)")
    if isinstance(result, float) and math.isinf(result):
        raise ToolError("the result is too large for floating point; use whole numbers for exact results")
    return result


def format_number(value: int | float) -> str:
    """Integers exactly (beyond Python's 4,300-digit printing limit: the leading 12 digits and the digit
    count); floats with 12 significant digits, which hides noise like 0.30000000000000004."""
    if isinstance(value, int):
        return str(value) if value.bit_length() <= _MAX_EXACT_BITS else _scientific(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".12g")


def _scientific(value: int) -> str:
    """`≈1.23456789012e+5000 (5001 digits)` for an integer too long to print in full."""
    magnitude = abs(value)
    exponent = int(math.log10(magnitude))
    while 10**exponent > magnitude:
        exponent -= 1
    while 10 ** (exponent + 1) <= magnitude:
        exponent += 1
    lead = str(magnitude // 10 ** (exponent - 11))
    mantissa = f"{lead[0]}.{lead[1:]}".rstrip("0").rstrip(".")
    return f"≈{'-' if value < 0 else ''}{mantissa}e+{exponent} ({exponent + 1} digits)"


def _eval_node(node: ast.expr) -> int | float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ToolError(f"only numbers are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.BinOp):
        return _binary(node)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPS:
        return _UNARY_OPS[type(node.op)](_eval_node(node.operand))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolError(f"unknown name {node.id!r}")
    if isinstance(node, ast.Call):
        return _call(node)
    raise ToolError(f"unsupported syntax: {type(node).__name__}")


def _binary(node: ast.BinOp) -> int | float:
    if isinstance(node.op, ast.BitXor):
        raise ToolRetry("'^' is not a power operator here; use ** for powers")
    op = _BINARY_OPS.get(type(node.op))
    if op is None:
        raise ToolError(f"unsupported operator: {type(node.op).__name__}")
    left, right = _eval_node(node.left), _eval_node(node.right)
    if op is operator.pow:
        _check_power(left, right)
    result = op(left, right)
    if isinstance(result, complex):
        raise ToolError("the result is a complex number")
    if isinstance(result, int) and result.bit_length() > _MAX_RESULT_BITS:
        raise ToolError("the result is too large")
    return result


def _check_power(base: int | float, exponent: int | float) -> None:
    """Refuse a power whose result would be astronomically large before computing it."""
    if not (isinstance(base, int) and isinstance(exponent, int)):
        return  # a float power overflows to an error or inf on its own, it cannot grow without bound
    if exponent > 0 and abs(base) > 1 and abs(base).bit_length() * exponent > _MAX_RESULT_BITS:
        raise ToolError("the result is too large")


def _call(node: ast.Call) -> int | float:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
        raise ToolError(f"unknown function {name!r}")
    if node.keywords:
        raise ToolError("keyword arguments are not supported")
    return _FUNCTIONS[node.func.id](*(_eval_node(arg) for arg in node.args))


def _small_int(value: int | float) -> int:
    if not float(value).is_integer() or not 0 <= value <= _MAX_FACTORIAL:
        raise ToolError(f"factorial needs a whole number from 0 to {_MAX_FACTORIAL}")
    return int(value)
