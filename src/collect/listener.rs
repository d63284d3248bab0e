//! Whose socket listens on a port: the check that the server a measurement talks to is the one
//! it launched, not another that answers on the same port (a second task's on the same node,
//! or one a killed benchsite left). Linux only: `/proc/net/tcp` and `tcp6` name the listening
//! sockets' inodes, and `/proc/<pid>/fd` which processes hold them; elsewhere nothing is known.
//! (A few lines of `/proc`, read here rather than through a crate for all of procfs.)

/// Whether a process of the process group `group` holds a socket listening on `port`: `None`
/// when no socket listens there, or this system cannot tell.
pub fn held_by_group(port: u16, group: i32) -> Option<bool> {
    let inodes = listening(port);
    if inodes.is_empty() {
        return None;
    }
    let processes = std::fs::read_dir("/proc").ok()?;
    let held = processes
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| process_group(pid) == Some(group))
        .any(|pid| holds(pid, &inodes));
    Some(held)
}

/// The inodes of the sockets listening on `port`, IPv4 and IPv6.
fn listening(port: u16) -> Vec<u64> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .filter_map(|line| listener(line, port))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A line of `/proc/net/tcp` (`sl local_address rem_address st … uid timeout inode …`): its
/// socket's inode, when it listens (state `0A`) on `port`.
fn listener(line: &str, port: u16) -> Option<u64> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let (_, local_port) = fields.get(1)?.rsplit_once(':')?;
    let listens = *fields.get(3)? == "0A";
    (listens && u16::from_str_radix(local_port, 16).ok()? == port)
        .then(|| fields.get(9)?.parse().ok())
        .flatten()
}

/// Whether process `pid` holds one of the sockets `inodes`.
fn holds(pid: i32, inodes: &[u64]) -> bool {
    let Ok(descriptors) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    descriptors.flatten().any(|fd| {
        std::fs::read_link(fd.path()).ok().is_some_and(|target| {
            target
                .to_str()
                .and_then(|t| t.strip_prefix("socket:[")?.strip_suffix(']'))
                .and_then(|inode| inode.parse::<u64>().ok())
                .is_some_and(|inode| inodes.contains(&inode))
        })
    })
}

/// Process `pid`'s process group, from `/proc/<pid>/stat` (`pid (comm) state ppid pgrp …`,
/// read after the last `)`: a command's name may hold spaces and parentheses).
pub fn process_group(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two lines of a real `/proc/net/tcp`: a socket listening on 127.0.0.1:8000 (0x1F40), and
    /// one connected from port 8000 (state 01, established).
    #[test]
    fn a_listening_line_gives_its_inode() {
        let listening = "   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0";
        let connected = "   1: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 654321 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(listener(listening, 8000), Some(123_456));
        assert_eq!(listener(listening, 8001), None);
        assert_eq!(listener(connected, 8000), None);
    }

    /// A socket this test's process opens is held by its group, and by no other. (Once it is
    /// closed, another test of this process may listen on the same port at once: not asked.)
    #[test]
    #[cfg(target_os = "linux")]
    fn a_socket_is_held_by_its_process_group() {
        let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = socket.local_addr().unwrap().port();
        let group = process_group(std::process::id() as i32).unwrap();
        assert_eq!(held_by_group(port, group), Some(true));
        assert_eq!(held_by_group(port, group + 1), Some(false));
    }
}
