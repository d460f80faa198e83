package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.LimitStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The IETF header values, for one status (built directly) and for several (built in a loop): the same text. */
class RateLimitHeadersTests {

    private static LimitStatus status(String entity, String limit, long available, boolean exceeded, boolean soft) {
        return new LimitStatus(entity, "api", limit, 100, available, 1, exceeded, soft,
                exceeded ? Duration.ofMillis(1_500) : Duration.ZERO);
    }

    private static Map<String, String> headers(List<LimitStatus> statuses) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.set(headers::put, statuses);
        return headers;
    }

    @Test
    void oneStatusGivesTheSameTextAsTheGeneralForm() {
        LimitStatus admitted = status("alice", "rpm", 42, false, false);
        LimitStatus soft = status("alice", "tpm", 7, false, true);
        Map<String, String> expected = Map.of("RateLimit-Policy", "\"rpm\";q=100", "RateLimit", "\"rpm\";r=42");
        assertThat(headers(List.of(admitted))).isEqualTo(expected);
        assertThat(headers(List.of(admitted, soft))).isEqualTo(expected);
    }

    @Test
    void anExceededStatusCarriesItsSecondsRoundedUp() {
        LimitStatus refused = status("alice", "rpm", 0, true, false);
        Map<String, String> expected = Map.of("RateLimit-Policy", "\"rpm\";q=100", "RateLimit", "\"rpm\";r=0;t=2");
        assertThat(headers(List.of(refused))).isEqualTo(expected);
        assertThat(headers(List.of(refused, status("alice", "tpm", 7, false, true)))).isEqualTo(expected);
    }

    @Test
    void softLimitsAloneGiveNoHeaders() {
        assertThat(headers(List.of(status("alice", "tpm", 7, false, true)))).isEmpty();
        assertThat(headers(List.of())).isEmpty();
    }

    @Test
    void severalHardLimitsAndAParentAreListedInOrder() {
        assertThat(headers(List.of(status("alice", "rpm", 42, false, false), status("org", "rpm", -3, true, false))))
                .containsEntry("RateLimit-Policy", "\"rpm\";q=100, \"parent.rpm\";q=100")
                .containsEntry("RateLimit", "\"rpm\";r=42, \"parent.rpm\";r=0;t=2");
    }

    @Test
    void aRulesLastPolicyIsReusedUntilTheLimitOrItsCapacityChanges() {
        RateLimitHeaders.LastPolicy policies = new RateLimitHeaders.LastPolicy();
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.set(headers::put, List.of(status("alice", "rpm", 42, false, false)), policies);
        assertThat(headers).isEqualTo(headers(List.of(status("alice", "rpm", 42, false, false))));
        String first = headers.get("RateLimit-Policy");
        RateLimitHeaders.set(headers::put, List.of(status("bob", "rpm", 7, true, false)), policies);
        assertThat(headers.get("RateLimit-Policy")).isSameAs(first);
        assertThat(headers.get("RateLimit")).isEqualTo("\"rpm\";r=7;t=2");

        assertThat(policies.of("rpm", 200)).isEqualTo("\"rpm\";q=200");
        assertThat(policies.of("rps", 200)).isEqualTo("\"rps\";q=200");
        assertThat(policies.of("rps", Long.MAX_VALUE)).isEqualTo("\"rps\";q=999999999999999");
    }
}
