"""Compiler options shared by every verbsemu target (Abseil's copts.bzl pattern)."""

VERBSEMU_COPTS = [
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
]

# Test sources: -O1 after the build's -O2. A GoogleTest file at -O2 takes
# about twice the compiler time for no gain (the code under test is built
# as libraries, at the build's level); -O1 keeps the inlined helpers fast.
VERBSEMU_TEST_COPTS = VERBSEMU_COPTS + ["-O1"]
