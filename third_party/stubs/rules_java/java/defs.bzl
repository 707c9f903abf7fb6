"""Offline stub of rules_java: forwards to the native rules of Bazel 4.2."""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_toolchain = native.java_toolchain
java_test = native.java_test
