//! Travel times: which source a plan's durations and distances came from.

/// Which travel times a matrix holds: plans and optimisation reads name it, so a plan made on
/// straight lines because the road network was down never passes for a road plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TravelSource {
    /// Road durations and distances from an OSRM server.
    Osrm,
    /// Great-circle distance at a set speed, the configured source.
    GreatCircle,
    /// Great-circle distance because the configured road network could not answer: a
    /// degradation an operator must see.
    GreatCircleFallback,
    /// Planar coordinates or a matrix the caller supplied (benchmarks, tests).
    Given,
}

impl TravelSource {
    /// The spelling of reads, logs and metrics: `osrm`, `great-circle`,
    /// `great-circle (OSRM unreachable)`, `given`.
    pub fn as_str(self) -> &'static str {
        match self {
            TravelSource::Osrm => "osrm",
            TravelSource::GreatCircle => "great-circle",
            TravelSource::GreatCircleFallback => "great-circle (OSRM unreachable)",
            TravelSource::Given => "given",
        }
    }

    /// Parses [`TravelSource::as_str`].
    pub fn parse(s: &str) -> Option<TravelSource> {
        [
            TravelSource::Osrm,
            TravelSource::GreatCircle,
            TravelSource::GreatCircleFallback,
            TravelSource::Given,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }

    /// The warning an operator is shown for a plan on these travel times, if any.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            TravelSource::GreatCircleFallback => Some(
                "the road network (OSRM) could not be reached: this plan's travel times are \
                 great-circle estimates, not road times; re-optimise once OSRM answers",
            ),
            _ => None,
        }
    }
}
