"""Fuzz targets: one source, two builds.

verbsemu_fuzz_test(name, srcs, deps, corpus) makes
  NAME         a fuzzer binary: under --config=fuzz (clang, libFuzzer, ASan and
               UBSan) a real libFuzzer; otherwise linked with a replay main
               that runs the input through LLVMFuzzerTestOneInput;
  NAME_replay  a test that replays every file of the committed corpus, so the
               plain, asan and tsan test runs check every input found so far.
tools/fuzz runs the fuzzers for a bounded time.
"""

load("//bazel:copts.bzl", "VERBSEMU_COPTS")

def verbsemu_fuzz_test(name, srcs, deps, corpus):
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        copts = VERBSEMU_COPTS,
        linkopts = select({
            "//bazel:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//bazel:fuzzing": [],
            "//conditions:default": ["//bazel:fuzz_replay_main"],
        }),
    )

    # `corpus` is a directory of the package; every file in it is an input.
    native.sh_test(
        name = name + "_replay",
        size = "small",
        srcs = ["//bazel:fuzz_replay.sh"],
        args = [
            "$(location :%s)" % name,
            native.package_name() + "/" + corpus,
        ],
        data = [":" + name] + native.glob([corpus + "/*"]),
    )
