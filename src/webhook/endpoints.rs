//! Fairness between webhook endpoints: a cap on the attempts in flight to
//! any one endpoint, and a circuit breaker per endpoint, so one tenant's
//! endpoint that accepts connections and never answers cannot take every
//! delivery slot from the others.
//!
//! Pure bookkeeping with the clock passed in; the delivery worker consults
//! it before each attempt. An attempt it refuses is not made: the worker
//! keeps the event waiting for a slot at the endpoint, or (breaker open)
//! lets the claim's lease return it to the outbox, so events are delayed,
//! never dropped, and no attempt is counted for them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The endpoint an event goes to: scheme, host and port of its URL, so every
/// path on one server shares one budget.
pub(crate) fn endpoint_key(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => format!(
            "{}://{}:{}",
            parsed.scheme(),
            parsed.host_str().unwrap_or_default(),
            parsed.port_or_known_default().unwrap_or_default()
        ),
        Err(_) => url.to_owned(),
    }
}

/// How one attempt ended, for the breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AttemptResult {
    /// A 2xx answer.
    Delivered,
    /// Any other answer, a timeout or a transport error.
    Failed,
    /// Not made (e.g. the account directory was unavailable): says nothing
    /// about the endpoint.
    NotMade,
}

#[derive(Debug, Default)]
struct Endpoint {
    in_flight: usize,
    consecutive_failures: u32,
    /// While set and in the future, the breaker is open.
    open_until: Option<Instant>,
    /// Half-open: the one trial attempt is under way.
    trial: bool,
}

impl Endpoint {
    fn idle_and_healthy(&self) -> bool {
        self.in_flight == 0 && self.consecutive_failures == 0 && self.open_until.is_none()
    }
}

/// Per-endpoint in-flight counts and breakers.
#[derive(Debug)]
pub(crate) struct Endpoints {
    per_endpoint: usize,
    breaker_threshold: u32,
    cool_down: Duration,
    states: Mutex<HashMap<String, Endpoint>>,
}

impl Endpoints {
    pub(crate) fn new(per_endpoint: usize, breaker_threshold: u32, cool_down: Duration) -> Self {
        Self {
            per_endpoint: per_endpoint.max(1),
            breaker_threshold: breaker_threshold.max(1),
            cool_down,
            states: Mutex::new(HashMap::new()),
        }
    }

    /// Whether an attempt to `endpoint` may start at `now`; if so it is
    /// counted in flight until [`Endpoints::finish`].
    pub(crate) fn try_start(&self, endpoint: &str, now: Instant) -> bool {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        let state = states.entry(endpoint.to_owned()).or_default();
        if state.in_flight >= self.per_endpoint {
            return false;
        }
        if let Some(until) = state.open_until {
            // Open: nothing until the cool-down ends; then one trial at a time.
            if now < until || state.trial {
                return false;
            }
            state.trial = true;
        }
        state.in_flight += 1;
        true
    }

    /// Whether the endpoint's breaker is open at `now` (its cool-down not
    /// over yet).
    pub(crate) fn is_open(&self, endpoint: &str, now: Instant) -> bool {
        let states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        states
            .get(endpoint)
            .and_then(|state| state.open_until)
            .is_some_and(|until| until > now)
    }

    /// Records how an attempt started with [`Endpoints::try_start`] ended.
    pub(crate) fn finish(&self, endpoint: &str, result: AttemptResult, now: Instant) {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        let Some(state) = states.get_mut(endpoint) else {
            return;
        };
        state.in_flight = state.in_flight.saturating_sub(1);
        let was_trial = std::mem::take(&mut state.trial) && state.open_until.is_some();
        match result {
            AttemptResult::Delivered => {
                state.consecutive_failures = 0;
                state.open_until = None;
            }
            AttemptResult::Failed => {
                state.consecutive_failures = state.consecutive_failures.saturating_add(1);
                if state.consecutive_failures >= self.breaker_threshold || was_trial {
                    state.open_until = now.checked_add(self.cool_down);
                }
            }
            AttemptResult::NotMade => {}
        }
        if state.idle_and_healthy() {
            states.remove(endpoint);
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.states.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn endpoints_are_scheme_host_and_port() {
        assert_eq!(
            endpoint_key("https://Hooks.Example.com/a?b"),
            "https://hooks.example.com:443"
        );
        assert_eq!(
            endpoint_key("https://hooks.example.com:8443/x"),
            "https://hooks.example.com:8443"
        );
        assert_eq!(endpoint_key("http://127.0.0.1:9/x"), "http://127.0.0.1:9");
        assert_eq!(endpoint_key("not a url"), "not a url");
    }

    #[test]
    fn each_endpoint_has_its_own_cap() {
        let endpoints = Endpoints::new(2, 5, MINUTE);
        let now = Instant::now();
        assert!(endpoints.try_start("a", now) && endpoints.try_start("a", now));
        assert!(!endpoints.try_start("a", now), "a is at its cap");
        assert!(endpoints.try_start("b", now), "b is not held up by a");
        endpoints.finish("a", AttemptResult::Delivered, now);
        assert!(endpoints.try_start("a", now));
    }

    #[test]
    fn the_breaker_opens_cools_down_and_closes_after_a_good_trial() {
        let endpoints = Endpoints::new(10, 3, MINUTE);
        let start = Instant::now();
        for _ in 0..3 {
            assert!(endpoints.try_start("a", start));
            endpoints.finish("a", AttemptResult::Failed, start);
        }
        assert!(!endpoints.try_start("a", start), "open after 3 failures");
        assert!(endpoints.is_open("a", start) && !endpoints.is_open("b", start));
        assert!(!endpoints.is_open("a", start + MINUTE), "cooled down");
        let later = start + MINUTE;
        assert!(endpoints.try_start("a", later), "half-open: one trial");
        assert!(!endpoints.try_start("a", later), "only one trial at a time");
        endpoints.finish("a", AttemptResult::Failed, later);
        assert!(
            !endpoints.try_start("a", later),
            "a failed trial reopens it"
        );
        let after = later + MINUTE;
        assert!(endpoints.try_start("a", after));
        endpoints.finish("a", AttemptResult::Delivered, after);
        assert!(endpoints.try_start("a", after) && endpoints.try_start("a", after));
        endpoints.finish("a", AttemptResult::Delivered, after);
        endpoints.finish("a", AttemptResult::Delivered, after);
        assert_eq!(
            endpoints.tracked(),
            0,
            "idle healthy endpoints are forgotten"
        );
    }

    #[test]
    fn attempts_not_made_say_nothing_about_the_endpoint() {
        let endpoints = Endpoints::new(1, 1, MINUTE);
        let now = Instant::now();
        assert!(endpoints.try_start("a", now));
        endpoints.finish("a", AttemptResult::NotMade, now);
        assert!(endpoints.try_start("a", now));
    }

    proptest! {
        #[test]
        fn never_more_in_flight_than_the_cap(
            cap in 1usize..5,
            steps in prop::collection::vec((0u8..3, any::<bool>(), 0u8..3), 1..200),
        ) {
            let endpoints = Endpoints::new(cap, 2, Duration::from_secs(1));
            let start = Instant::now();
            let mut in_flight = [0usize; 3];
            for (step, (endpoint, begin, result)) in steps.into_iter().enumerate() {
                let now = start + Duration::from_millis(step as u64 * 100);
                let key = endpoint.to_string();
                let slot = &mut in_flight[usize::from(endpoint)];
                if begin {
                    if endpoints.try_start(&key, now) {
                        *slot += 1;
                    }
                } else if *slot > 0 {
                    *slot -= 1;
                    let result = [AttemptResult::Delivered, AttemptResult::Failed, AttemptResult::NotMade]
                        [usize::from(result)];
                    endpoints.finish(&key, result, now);
                }
                prop_assert!(*slot <= cap);
            }
        }
    }
}
