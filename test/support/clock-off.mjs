// Preloaded into a child process (`node --import`) to run it as on a machine whose clock is off by
// GANTRY_TEST_CLOCK_OFF_MS, as withClockOff does in the test's own process.
const offsetMs = Number(process.env.GANTRY_TEST_CLOCK_OFF_MS ?? 0);
const realNow = Date.now;
Date.now = () => realNow() + offsetMs;
