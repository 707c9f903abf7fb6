#!/bin/sh
# Bazel's workspace status (.bazelrc --workspace_status_command): STABLE_
# keys reach stamped targets (//version:version_h: every program's --version).
# GIT_OPTIONAL_LOCKS=0: the index refresh behind --dirty must not take
# .git/index.lock from a git command running at the same time.
v=$(GIT_OPTIONAL_LOCKS=0 git describe --always --dirty --tags 2>/dev/null) || v=unknown
echo "STABLE_VERBSEMU_VERSION $v"
