/** The example plugin's own tests (examples/weather), run with the suite: bunfig's root is tests/. */
import '../../examples/weather/weather.test.ts'
