//! The filter installed on a throwaway thread of this process (seccomp is
//! per thread), without bwrap, to check what it allows and refuses.

use super::{build, chain, filter_bytes};

fn on_filtered_thread<T: Send + 'static>(
    network: bool,
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    let program = build(network).unwrap();
    std::thread::spawn(move || {
        seccompiler::apply_filter(&program).unwrap();
        body()
    })
    .join()
    .unwrap()
}

#[test]
fn bytes_are_whole_instructions_and_cached() {
    for network in [false, true] {
        let bytes = filter_bytes(network).unwrap();
        assert_eq!(bytes.len() % 8, 0);
        assert_eq!(bytes.len() / 8, build(network).unwrap().len());
        assert!(std::ptr::eq(bytes, filter_bytes(network).unwrap()));
    }
    assert!(filter_bytes(false).unwrap().len() > filter_bytes(true).unwrap().len());
}

#[test]
fn network_off_refuses_inet_sockets_but_not_unix_ones() {
    let (tcp, unix) = on_filtered_thread(false, || {
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").map(|_| ());
        let unix = std::os::unix::net::UnixStream::pair().map(|_| ());
        (tcp, unix)
    });
    assert_eq!(tcp.unwrap_err().raw_os_error(), Some(libc::EAFNOSUPPORT));
    unix.unwrap();
}

#[test]
fn network_on_allows_inet_sockets() {
    let tcp = on_filtered_thread(true, || {
        std::net::TcpListener::bind("127.0.0.1:0").map(|_| ())
    });
    tcp.unwrap();
}

#[test]
fn threads_and_processes_still_start_but_namespaces_do_not() {
    let (thread, spawned, unshare) = on_filtered_thread(false, || {
        // glibc tries clone3 first; ENOSYS makes it fall back to clone.
        let thread = std::thread::spawn(|| 7).join().ok();
        let spawned = std::process::Command::new("true")
            .status()
            .map(|s| s.success());
        let unshare = std::process::Command::new("unshare")
            .args(["-U", "true"])
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success());
        (thread, spawned, unshare)
    });
    assert_eq!(thread, Some(7));
    assert!(spawned.unwrap());
    assert!(!unshare.unwrap(), "unshare -U must fail under the filter");
}

#[test]
fn chain_turns_allows_into_jumps_to_the_next_program() {
    use seccompiler::sock_filter;
    let ret = |k| sock_filter {
        code: 0x06,
        jt: 0,
        jf: 0,
        k,
    };
    let allow = libc::SECCOMP_RET_ALLOW;
    let first = vec![ret(allow), ret(5), ret(allow)];
    let second = vec![ret(allow)];
    let chained = chain(vec![first, second]);
    assert_eq!(chained.len(), 4);
    assert_eq!((chained[0].code, chained[0].k), (0x05, 2)); // ja → index 3
    assert_eq!((chained[1].code, chained[1].k), (0x06, 5));
    assert_eq!((chained[2].code, chained[2].k), (0x05, 0)); // ja → index 3
    assert_eq!((chained[3].code, chained[3].k), (0x06, allow));
}
