//! This process's name on the background work it claims (jobs, webhook leases): what the
//! store records as a lease's holder, and what logs and metrics show.

/// `given` (`--node-id`), or `HOST-PID-XXXX`: the host name, the process id and eight random
/// hex digits, unique even when a restarted process gets the pid of a dead one.
pub fn node_id(given: Option<&str>) -> String {
    if let Some(id) = given.map(str::trim).filter(|s| !s.is_empty()) {
        return id.to_owned();
    }
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "node".to_owned());
    let mut bytes = [0u8; 4];
    let _ = getrandom::fill(&mut bytes);
    format!(
        "{host}-{}-{:08x}",
        std::process::id(),
        u32::from_be_bytes(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_node_id_wins_and_generated_ones_differ() {
        assert_eq!(node_id(Some(" api-1 ")), "api-1");
        let (a, b) = (node_id(None), node_id(Some("")));
        assert!(a.contains(&std::process::id().to_string()), "{a}");
        assert_ne!(a, b, "the random suffix tells processes apart");
    }
}
