use super::*;

/// `struct seccomp_data` as the program reads it.
struct Data {
    nr: u32,
    arch: u32,
    arg0: u64,
    /// Arguments 1 to 5.
    rest: [u64; 5],
}

impl Data {
    fn new(nr: u32, arch: u32, arg0: u64) -> Data {
        Data {
            nr,
            arch,
            arg0,
            rest: [0; 5],
        }
    }

    fn word(&self, offset: u32) -> u32 {
        let arg = |n: u32| {
            if n == 0 {
                self.arg0
            } else {
                self.rest[n as usize - 1]
            }
        };
        match offset {
            0 => self.nr,
            4 => self.arch,
            16..=63 if offset.is_multiple_of(4) => {
                let value = arg((offset - 16) / 8);
                if offset.is_multiple_of(8) {
                    value as u32
                } else {
                    (value >> 32) as u32
                }
            }
            other => panic!("unexpected load at {other}"),
        }
    }
}

/// Runs a classic BPF program the way the kernel's seccomp does (the subset both programs use).
fn run(program: &[sock_filter], data: &Data) -> u32 {
    let (mut acc, mut pc) = (0u32, 0usize);
    loop {
        let ins = program[pc];
        let code = u32::from(ins.code);
        pc += 1;
        match code {
            c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => acc = data.word(ins.k),
            c if c == libc::BPF_ALU | libc::BPF_AND | libc::BPF_K => acc &= ins.k,
            c if c == libc::BPF_RET | libc::BPF_K => return ins.k,
            c if c == libc::BPF_JMP | libc::BPF_JA => pc += ins.k as usize,
            c if c & 0x07 == libc::BPF_JMP => {
                let taken = match c & 0xf0 {
                    op if op == libc::BPF_JEQ => acc == ins.k,
                    op if op == libc::BPF_JGT => acc > ins.k,
                    op if op == libc::BPF_JGE => acc >= ins.k,
                    op if op == libc::BPF_JSET => acc & ins.k != 0,
                    op => panic!("unexpected jump {op:#x}"),
                };
                pc += usize::from(if taken { ins.jt } else { ins.jf });
            }
            other => panic!("unexpected instruction {other:#x}"),
        }
    }
}

fn arch() -> u32 {
    AUDIT_ARCH.expect("an architecture the sandbox supports")
}

const REFUSED: [i64; 5] = [
    libc::SYS_mount,
    libc::SYS_reboot,
    libc::SYS_io_uring_setup,
    libc::SYS_swapon,
    libc::SYS_acct,
];

const FAMILIES: [u64; 6] = [
    libc::AF_UNIX as u64,
    libc::AF_INET as u64,
    libc::AF_INET6 as u64,
    libc::AF_PACKET as u64,
    libc::AF_NETLINK as u64,
    // A family of AF_UNIX in the low word: the kernel reads an int, so this is AF_UNIX.
    (7u64 << 32) | libc::AF_UNIX as u64,
];

fn expected(nr: u32, arg0: u64, calls: &[i64], sockets: bool) -> u32 {
    let refused = |n: u32| calls.contains(&i64::from(n));
    let socket = libc::SYS_socket as u32;
    #[cfg(target_arch = "x86_64")]
    let nr = nr & !X32_BIT;
    if refused(nr) || (sockets && nr == socket && arg0 as u32 != libc::AF_UNIX as u32) {
        DENY
    } else {
        ALLOW
    }
}

fn numbers() -> Vec<u32> {
    let mut numbers: Vec<u32> = (0..1024).collect();
    #[cfg(target_arch = "x86_64")]
    numbers.extend((0..1024).map(|n| n | X32_BIT));
    numbers.push(u32::MAX);
    numbers
}

#[test]
fn refuses_exactly_the_named_calls_and_foreign_sockets() {
    for sockets in [false, true] {
        let program = program(&REFUSED, sockets, &[]).unwrap();
        for nr in numbers() {
            for arg0 in FAMILIES {
                let data = Data::new(nr, arch(), arg0);
                assert_eq!(
                    run(&program, &data),
                    expected(nr, arg0, &REFUSED, sockets),
                    "syscall {nr:#x}, arg0 {arg0:#x}, sockets {sockets}"
                );
            }
        }
    }
}

#[test]
fn another_architecture_is_killed() {
    let program = program(&REFUSED, true, &[]).unwrap();
    let i386 = Data::new(102 /* socketcall */, 0x4000_0003, 1);
    assert_eq!(run(&program, &i386), KILL);
}

#[test]
fn the_sandbox_sized_program_stays_small_and_in_reach_of_its_jumps() {
    let many: Vec<i64> = (100..140).chain(400..440).collect();
    let program = program(&many, true, &[]).unwrap();
    assert!(program.len() < 8 * many.len(), "{} instructions", program.len());
    for nr in numbers() {
        let data = Data::new(nr, arch(), libc::AF_INET as u64);
        assert_eq!(run(&program, &data), expected(nr, data.arg0, &many, true));
    }
    assert!(super::program(&[], false, &[]).is_err());
}

/// The same verdicts as seccompiler's program for the same rules (the crate this replaced on
/// the hot path), run through the same interpreter.
#[test]
fn agrees_with_seccompiler() {
    use seccompiler::{SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompRule};
    use std::collections::BTreeMap;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let not_unix =
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, libc::AF_UNIX as u64).unwrap();
    rules.insert(
        libc::SYS_socket,
        vec![SeccompRule::new(vec![not_unix.clone()]).unwrap()],
    );
    for call in REFUSED {
        rules.insert(call, Vec::new());
    }
    #[cfg(target_arch = "x86_64")]
    {
        let x32 = |call: i64| call | i64::from(X32_BIT);
        rules.insert(
            x32(libc::SYS_socket),
            vec![SeccompRule::new(vec![not_unix.clone()]).unwrap()],
        );
        for call in REFUSED {
            rules.insert(x32(call), Vec::new());
        }
    }
    let filter = seccompiler::SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        seccompiler::TargetArch::try_from(std::env::consts::ARCH).unwrap(),
    )
    .unwrap();
    let theirs: seccompiler::BpfProgram = filter.try_into().unwrap();
    let theirs: Vec<sock_filter> = theirs
        .iter()
        .map(|i| sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect();
    let ours = program(&REFUSED, true, &[]).unwrap();
    assert!(
        ours.len() < theirs.len(),
        "{} against {}",
        ours.len(),
        theirs.len()
    );
    for nr in numbers() {
        for arg0 in FAMILIES {
            for arch in [arch(), 0x4000_0003] {
                let data = Data::new(nr, arch, arg0);
                assert_eq!(
                    run(&ours, &data),
                    run(&theirs, &data),
                    "syscall {nr:#x}, arg0 {arg0:#x}"
                );
            }
        }
    }
}

const DEVICE_KINDS: &[u32] = &[libc::S_IFCHR, libc::S_IFBLK];
const TERMINAL_INJECTION: &[u32] = &[libc::TIOCSTI as u32, libc::TIOCLINUX as u32];

fn filters() -> [ArgFilter; 2] {
    [
        ArgFilter {
            nr: libc::SYS_mknodat,
            arg: 2,
            mask: libc::S_IFMT,
            values: DEVICE_KINDS,
        },
        ArgFilter {
            nr: libc::SYS_ioctl,
            arg: 1,
            mask: u32::MAX,
            values: TERMINAL_INJECTION,
        },
    ]
}

#[test]
fn an_argument_filter_refuses_only_the_values_it_names() {
    let program = program(&REFUSED, true, &filters()).unwrap();
    let verdict = |nr: i64, args: [u64; 3]| {
        let mut data = Data::new(nr as u32, arch(), args[0]);
        data.rest[0] = args[1];
        data.rest[1] = args[2];
        run(&program, &data)
    };
    let mode = |kind: u32, perm: u32| u64::from(kind | perm);
    // mknodat(dirfd, path, mode, dev): devices refused, whatever their permission bits.
    assert_eq!(
        verdict(libc::SYS_mknodat, [3, 0, mode(libc::S_IFCHR, 0o666)]),
        DENY
    );
    assert_eq!(
        verdict(libc::SYS_mknodat, [3, 0, mode(libc::S_IFBLK, 0o600)]),
        DENY
    );
    // FIFOs, sockets and regular files are what mkfifo and friends make: allowed.
    for kind in [libc::S_IFIFO, libc::S_IFSOCK, libc::S_IFREG, 0] {
        assert_eq!(
            verdict(libc::SYS_mknodat, [3, 0, mode(kind, 0o644)]),
            ALLOW,
            "{kind:o}"
        );
    }
    // ioctl(fd, request, ...): only the two injecting requests.
    assert_eq!(
        verdict(libc::SYS_ioctl, [0, u64::from(libc::TIOCSTI as u32), 0]),
        DENY
    );
    assert_eq!(
        verdict(libc::SYS_ioctl, [0, u64::from(libc::TIOCLINUX as u32), 0]),
        DENY
    );
    for request in [libc::TCGETS, libc::TIOCGWINSZ, libc::FIONREAD] {
        assert_eq!(verdict(libc::SYS_ioctl, [1, u64::from(request as u32), 0]), ALLOW);
    }
    // The rest of the program is unchanged by the filters.
    for nr in numbers() {
        if [libc::SYS_mknodat as u32, libc::SYS_ioctl as u32].contains(&(nr & !0x4000_0000)) {
            continue;
        }
        for arg0 in FAMILIES {
            let data = Data::new(nr, arch(), arg0);
            assert_eq!(
                run(&program, &data),
                expected(nr, arg0, &REFUSED, true),
                "{nr:#x}"
            );
        }
    }
}

#[test]
fn a_call_refused_outright_stays_refused_when_also_filtered() {
    let program = program(&[libc::SYS_ioctl], false, &filters()).unwrap();
    let data = Data::new(libc::SYS_ioctl as u32, arch(), 0);
    assert_eq!(run(&program, &data), DENY);
}
