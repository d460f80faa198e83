package dev.zaelimiter.store.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The numbers {@code bucket.lua} writes in decide mode stay exact beyond 2<sup>31</sup> (an epoch-millisecond
 * instant, a horizon, a consumption of 3 * 10<sup>9</sup> milli-tokens, a debt near 2<sup>53</sup>) on the server
 * the tests run, and on a 32-bit build too, whose Lua formats {@code '%d'} as a 32-bit C long: the script run with
 * its {@code string.format} replaced by one that does so.
 */
class RedisScriptNumbersTest {

    /** {@code '%d'} as a 32-bit build formats a number beyond a C long's range (x86: the smallest long). */
    private static final String FORMAT_32 = """
            local function format32(f, x, ...)
              if f == '%d' and (x >= 2^31 or x < -2^31) then
                return '-2147483648'
              end
              return string.format(f, x, ...)
            end
            """;
    private static final String NO_SESSION = "-9223372036854775808\t";

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void numbersBeyond2To31AreWrittenExactly(boolean longOf32Bits) {
        String script = RedisCalls.Script.load("bucket").text();
        if (longOf32Bits) {
            String line = "local fmt, find, sub = string.format,";
            assertThat(script).contains(line);
            script = FORMAT_32 + script.replace(line, "local fmt, find, sub = format32,");
        }
        String key = "numbers-" + longOf32Bits + "#B";
        long last = 1_764_000_000_000L;
        long now = last + 5_000;
        long horizon = now + 3_000_000_000L;
        redis().del(key);
        redis().hset(key, Map.of("v", "t0", "s", last + "\nq\t-9007199254740000\t2999999999\t" + NO_SESSION,
                "x", Long.toString(last), "k", "stamp", "d", ""));
        // token stamp horizon deadline ahead slides mode countOnly m; name cap amount hard refill period reset
        String packed = String.join(" ", "t1", "stamp", Long.toString(horizon), "", Long.toString(now + 1), "",
                "a", "", "1", "q", "4000000000000000", "1", "", "0", "0", "0");

        List<Object> answer = redis().eval(script, ScriptOutputType.MULTI, new String[] {key},
                "1", "", Long.toString(now), "", packed);

        String state = now + "\nq\t-9007199254740001\t3000000000\t" + NO_SESSION;
        assertThat(answer).containsExactly(1L, "", state);
        assertThat(redis().hgetall(key)).containsEntry("v", "t1").containsEntry("s", state)
                .containsEntry("x", Long.toString(horizon));
    }

    private static RedisCommands<String, String> redis() {
        return RedisTestStores.connection().sync();
    }
}
