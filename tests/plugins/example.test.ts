/** The example plugins' own tests (examples/weather, examples/helpdesk), run with the suite: bunfig's root is tests/. */
import '../../examples/weather/weather.test.ts'
import '../../examples/helpdesk/helpdesk.test.ts'
