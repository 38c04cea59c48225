"""Unit conversion: length, mass, volume, speed, area, time and temperature, by name, plural or symbol.

Each unit is a factor to its dimension's base unit (metre, kilogram, litre, metre per second, square
metre, second); temperature converts through kelvin with an offset. US customary volumes are used for
"gallon", "pint" and "cup" (the imperial ones are named "imperial gallon" and "imperial pint").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from core.errors import ToolRetry


@dataclass(frozen=True)
class Unit:
    """One unit: its dimension, its factor to the dimension's base unit, its offset (temperatures) and the
    name an answer uses for it."""

    dimension: str
    factor: float
    name: str
    offset: float = 0.0


def _table() -> Mapping[str, Unit]:
    rows = [
        # dimension, factor, answer name, spellings (singular and plural forms, symbols)
        ("length", 0.001, "millimetres", "mm millimetre millimetres millimeter millimeters"),
        ("length", 0.01, "centimetres", "cm centimetre centimetres centimeter centimeters"),
        ("length", 1.0, "metres", "m metre metres meter meters"),
        ("length", 1000.0, "kilometres", "km kms kilometre kilometres kilometer kilometers"),
        ("length", 0.0254, "inches", "in inch inches"),
        ("length", 0.3048, "feet", "ft foot feet"),
        ("length", 0.9144, "yards", "yd yds yard yards"),
        ("length", 1609.344, "miles", "mi mile miles"),
        ("length", 1852.0, "nautical miles", "nmi nautical_mile nautical_miles"),
        ("mass", 0.001, "grams", "g gram grams gramme grammes"),
        ("mass", 1.0, "kilograms", "kg kgs kilo kilos kilogram kilograms kilogramme kilogrammes"),
        ("mass", 1000.0, "tonnes", "t tonne tonnes metric_ton metric_tons"),
        ("mass", 0.45359237, "pounds", "lb lbs pound pounds"),
        ("mass", 0.028349523125, "ounces", "oz ounce ounces"),
        ("mass", 6.35029318, "stone", "st stone stones"),
        ("volume", 0.001, "millilitres", "ml millilitre millilitres milliliter milliliters"),
        ("volume", 0.01, "centilitres", "cl centilitre centilitres"),
        ("volume", 0.1, "decilitres", "dl decilitre decilitres"),
        ("volume", 1.0, "litres", "l litre litres liter liters"),
        ("volume", 3.785411784, "US gallons", "gal gallon gallons us_gallon us_gallons"),
        ("volume", 4.54609, "imperial gallons", "imperial_gallon imperial_gallons"),
        ("volume", 0.473176473, "US pints", "pt pint pints us_pint us_pints"),
        ("volume", 0.56826125, "imperial pints", "imperial_pint imperial_pints"),
        ("volume", 0.2365882365, "US cups", "cup cups"),
        ("volume", 0.0295735295625, "US fluid ounces", "floz fl_oz fluid_ounce fluid_ounces"),
        ("volume", 0.01478676478125, "tablespoons", "tbsp tablespoon tablespoons"),
        ("volume", 0.00492892159375, "teaspoons", "tsp teaspoon teaspoons"),
        ("speed", 1.0, "metres per second", "m/s mps metres_per_second meters_per_second"),
        ("speed", 1000 / 3600, "kilometres per hour", "km/h kmh kph kilometres_per_hour kilometers_per_hour"),
        ("speed", 1609.344 / 3600, "miles per hour", "mph miles_per_hour"),
        ("speed", 1852 / 3600, "knots", "kn knot knots"),
        ("area", 1.0, "square metres", "m2 sqm square_metre square_metres square_meter square_meters"),
        ("area", 1e6, "square kilometres", "km2 square_kilometre square_kilometres square_kilometer"),
        ("area", 0.09290304, "square feet", "ft2 sqft square_foot square_feet"),
        ("area", 2589988.110336, "square miles", "mi2 square_mile square_miles"),
        ("area", 10000.0, "hectares", "ha hectare hectares"),
        ("area", 4046.8564224, "acres", "ac acre acres"),
        ("time", 1.0, "seconds", "s sec secs second seconds"),
        ("time", 60.0, "minutes", "min mins minute minutes"),
        ("time", 3600.0, "hours", "h hr hrs hour hours"),
        ("time", 86400.0, "days", "d day days"),
        ("time", 604800.0, "weeks", "wk wks week weeks"),
    ]
    table: dict[str, Unit] = {}
    for dimension, factor, name, spellings in rows:
        for spelling in spellings.split():
            table[spelling.replace("_", " ")] = Unit(dimension, factor, name)
    # Temperatures: kelvin = value * factor + offset.
    for name, factor, offset, spellings in (
        ("degrees Celsius", 1.0, 273.15, "c °c celsius centigrade degrees_celsius degree_celsius"),
        ("degrees Fahrenheit", 5 / 9, 273.15 - 32 * 5 / 9, "f °f fahrenheit degrees_fahrenheit"),
        ("kelvin", 1.0, 0.0, "k kelvin kelvins"),
    ):
        for spelling in spellings.split():
            table[spelling.replace("_", " ")] = Unit("temperature", factor, name, offset)
    return MappingProxyType(table)


UNITS = _table()
# Longest spellings first, so "square feet" is read before "feet" and "fl oz" before "oz".
UNIT_PATTERN = "|".join(re.escape(s) for s in sorted(UNITS, key=len, reverse=True))


def unit_named(text: str) -> Unit:
    """The unit a name, plural or symbol stands for ("km", "Miles", "°F"); ToolRetry when unknown."""
    key = " ".join(text.strip().lower().rstrip(".").split())
    unit = UNITS.get(key) or UNITS.get(key.removeprefix("degrees ").removeprefix("degree "))
    if unit is None:
        raise ToolRetry(f"unknown unit {text!r}; use a name or symbol such as 'km', 'miles', 'kg', '°C'")
    return unit


def named_for(value: float, unit: Unit) -> str:
    """The unit's name as a quantity takes it: "1 mile", "2 miles", "1 foot", "1 degree Celsius"."""
    if abs(value) != 1:
        return unit.name
    if unit.name.startswith("degrees "):
        return "degree " + unit.name.removeprefix("degrees ")
    head, per, rest = unit.name.partition(" per ")
    words = head.split()
    last = {"feet": "foot", "inches": "inch"}.get(words[-1], words[-1].removesuffix("s"))
    return " ".join([*words[:-1], last]) + (per + rest if per else "")


def convert(value: float, source: Unit, target: Unit) -> float:
    """`value` in `source` units, expressed in `target` units (the same dimension)."""
    if source.dimension != target.dimension:
        raise ToolRetry(
            f"cannot convert {source.name} ({source.dimension}) to {target.name} ({target.dimension})"
        )
    base = value * source.factor + source.offset
    return (base - target.offset) / target.factor
