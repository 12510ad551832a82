// Timeline runs on Linux (Debian 12): it uses Glibc, /proc (peak memory, open descriptors) and
// Linux's flock and fallocate semantics. The manifest claims no Apple platform; building
// elsewhere stops here rather than at the first Glibc call.
#if !os(Linux)
    #error("Timeline builds on Linux only (it uses Glibc, /proc and Linux file-system behaviour)")
#endif
