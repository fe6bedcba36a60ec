//! Cross-cutting tower layers: request ids and logs, feature tokens, rate limits, idempotency.
