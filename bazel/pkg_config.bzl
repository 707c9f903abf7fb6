"""A repository rule that wraps a pkg-config package as a cc_library.

Runs `pkg-config --cflags/--libs` at fetch time. It never downloads: a
missing package fails with a message naming the Debian package to install.
"""

def _pkg_config_repository_impl(rctx):
    pkg = rctx.attr.package
    pc = rctx.which("pkg-config")
    if pc == None:
        fail("pkg-config not found: run tools/bootstrap (Debian package pkg-config)")
    cflags = rctx.execute([pc, "--cflags", pkg])
    libs = rctx.execute([pc, "--libs", pkg])
    if cflags.return_code != 0 or libs.return_code != 0:
        deb = rctx.attr.debian_package or pkg + "-dev"
        fail("pkg-config cannot find %s: run tools/bootstrap (Debian package %s)" %
             (pkg, deb))
    copts = []
    includes = []
    for flag in cflags.stdout.strip().split(" "):
        if flag.startswith("-I"):
            includes.append(flag[2:])
        elif flag:
            copts.append(flag)

    # System headers are linked into the repository so Bazel can track them.
    hdr_dirs = []
    for i, inc in enumerate(includes):
        rctx.symlink(inc, "include_%d" % i)
        hdr_dirs.append("include_%d" % i)
    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "{name}",
    hdrs = glob([{globs}], allow_empty = True),
    includes = {includes},
    copts = {copts},
    linkopts = {linkopts},
)
""".format(
        name = rctx.attr.name,
        globs = ", ".join(['"%s/**/*.h"' % d for d in hdr_dirs]),
        includes = repr(hdr_dirs),
        copts = repr(copts),
        linkopts = repr([f for f in libs.stdout.strip().split(" ") if f]),
    ))

pkg_config_repository = repository_rule(
    implementation = _pkg_config_repository_impl,
    attrs = {
        "package": attr.string(mandatory = True),
        # The Debian package that installs it (default: PACKAGE-dev).
        "debian_package": attr.string(),
    },
    environ = ["PKG_CONFIG_PATH"],
    local = True,
)
