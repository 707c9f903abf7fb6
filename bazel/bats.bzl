"""bats suites as Bazel tests.

verbsemu_bats_test(name, srcs, data) runs the bats files in srcs with
Debian's bats (tools/bootstrap installs it) and hands Bazel the suite's own
JUnit report as test.xml, so each @test is a case of its own in
bazel-testlogs (a skip stays a skip). The files run from the runfiles tree:
$BATS_TEST_DIRNAME is their directory there. A suite checking a program's
one-line refusals loads bazel/expect_error.bash (`load ../bazel/expect_error`,
the path from the suite's directory) and has "//bazel:expect_error.bash" in
data.
"""

def verbsemu_bats_test(name, srcs, data = [], **kwargs):
    native.sh_test(
        name = name,
        srcs = ["//bazel:bats_runner.sh"],
        args = ["$(location %s)" % src for src in srcs],
        data = srcs + data + ["//tools:internal/run_bats"],
        **kwargs
    )
