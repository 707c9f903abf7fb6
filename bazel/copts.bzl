"""Compiler options shared by every verbsemu target (Abseil's copts.bzl pattern)."""

VERBSEMU_COPTS = [
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
]
