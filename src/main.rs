//! The `guarded` command: see `guarded --help`.

fn main() {
    map_large_blocks();
    // On a thread of our own, for its stack (see `cli::STACK_SIZE`).
    let code = std::thread::Builder::new()
        .name("guarded".into())
        .stack_size(guarded::cli::STACK_SIZE)
        .spawn(guarded::cli::main)
        .map(|t| t.join().unwrap_or(101))
        .unwrap_or_else(|_| guarded::cli::main());
    std::process::exit(code);
}

/// Has glibc's allocator map every block of 128 KiB or more on its own,
/// as it does at first. By default, freeing such a block raises that
/// threshold (up to 32 MiB), and the large arrays an exploration grows
/// (the configurations' bytes, their starts, their enabled processes)
/// then grow inside the heap, each growth a copy whose old block stays
/// resident: Chang and Roberts' ring of 15 (`verify --no-rounds`, one
/// thread), 103.5 MB at its peak, takes 94.8 MB with the threshold fixed.
/// A mapped block grows by remapping its pages, and its pages not yet
/// written take no memory.
fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of the allocator, here
    // before this program allocates from another thread; a value it
    // refuses leaves the default (its result, 0, is then ignored).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}
