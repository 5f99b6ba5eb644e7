#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![no_main]

use bearagent_providers::Protocol;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| bearagent_providers_fuzz::run(Protocol::OpenAiResponses, data));
