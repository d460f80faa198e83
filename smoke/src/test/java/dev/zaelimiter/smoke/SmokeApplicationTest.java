package dev.zaelimiter.smoke;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts {@link SmokeApplication} on a free port, as {@code java -jar} would (no test slice, no mock, no AWS
 * configuration), and talks HTTP to it. The same source runs on every supported Spring Boot line; the module that
 * compiles it names the line in {@code expected.boot.version}.
 */
class SmokeApplicationTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ConfigurableApplicationContext app;
    private static String base;

    @BeforeAll
    static void start() {
        app = SpringApplication.run(SmokeApplication.class, "--server.port=0");
        base = "http://localhost:" + app.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void runsOnTheSpringBootLineOfItsModule() {
        assertThat(SpringBootVersion.getVersion()).isEqualTo(System.getProperty("expected.boot.version"));
    }

    /** The plain starter keeps the limits in memory and brings neither the AWS SDK nor Spring Cloud AWS. */
    @Test
    void anInMemoryApplicationCarriesNoAwsSdk() {
        assertThat(List.of("software.amazon.awssdk.core.SdkBytes",
                "software.amazon.awssdk.services.dynamodb.DynamoDbClient",
                "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration",
                "dev.zaelimiter.store.dynamodb.DynamoDbStore"))
                .noneMatch(SmokeApplicationTest::onTheClassPath);
    }

    private static boolean onTheClassPath(String className) {
        try {
            Class.forName(className, false, SmokeApplication.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Test
    void theFilterRuleAnswers429WithRetryAfterRateLimitHeadersAndAProblem() throws Exception {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> admitted = get("/api/hello", "X-Client", "filter-client");
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(admitted.body()).isEqualTo("hello");
            assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"requests\";q=2");
        }
        HttpResponse<String> refused = get("/api/hello", "X-Client", "filter-client");
        assertTooManyRequests(refused, "api");
        assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"requests\";r=0;t="));
        assertThat(get("/api/hello", "X-Client", "another-client").statusCode()).isEqualTo(200);
    }

    @Test
    void theRateLimitedMethodIsRefusedWithTheSameAnswer() throws Exception {
        assertThat(get("/reports/ann").statusCode()).isEqualTo(200);
        assertTooManyRequests(get("/reports/ann"), "reports");
        assertThat(get("/reports/bob").body()).isEqualTo("report for bob");
    }

    @Test
    void theEndpointListsTheDeclarationsAndReadsABucket() throws Exception {
        HttpResponse<String> declared = get("/actuator/ratelimits");
        assertThat(declared.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<Object>read(declared.body(), "$.resources.api")).isNotNull();
        assertThat(JsonPath.<Object>read(declared.body(), "$.resources.reports")).isNotNull();

        get("/reports/carol");
        HttpResponse<String> bucket = get("/actuator/ratelimits/carol/reports");
        assertThat(bucket.statusCode()).isEqualTo(200);
        assertThat(bucket.body()).contains("\"requests\"");
    }

    @Test
    void healthShowsTheLimiterUp() throws Exception {
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(health.body(), "$.components.zaeLimiter.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(health.body(), "$.components.zaeLimiter.details.store"))
                .isEqualTo("InMemoryStore");
    }

    @Test
    void decisionsAreCountedInTheMeters() throws Exception {
        get("/api/hello", "X-Client", "meter-client");
        get("/api/hello", "X-Client", "meter-client");
        get("/api/hello", "X-Client", "meter-client");

        assertThat(count("zae.limiter.decisions?tag=resource:api&tag=outcome:rejected")).isGreaterThanOrEqualTo(1);
        assertThat(count("zae.limiter.decisions?tag=resource:api&tag=outcome:admitted")).isGreaterThanOrEqualTo(2);
        HttpResponse<String> latency = get("/actuator/metrics/zae.limiter.decision.latency");
        assertThat(latency.statusCode()).isEqualTo(200);
        HttpResponse<String> store = get("/actuator/metrics/zae.limiter.store.latency");
        assertThat(store.statusCode()).isEqualTo(200);
    }

    private static void assertTooManyRequests(HttpResponse<String> response, String resource) {
        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValueSatisfying(
                value -> assertThat(Long.parseLong(value)).isPositive());
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"requests\";q="
                + ("api".equals(resource) ? 2 : 1));
        assertThat(response.headers().firstValue("RateLimit")).isPresent();
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JsonPath.<Integer>read(response.body(), "$.status")).isEqualTo(429);
        assertThat(JsonPath.<String>read(response.body(), "$.resource")).isEqualTo(resource);
        assertThat(JsonPath.<List<String>>read(response.body(), "$.violated-policies")).containsExactly("requests");
    }

    private static double count(String meterQuery) throws IOException, InterruptedException {
        HttpResponse<String> meter = get("/actuator/metrics/" + meterQuery);
        assertThat(meter.statusCode()).as("%s: %s", meterQuery, meter.body()).isEqualTo(200);
        assertThat(JsonPath.<String>read(meter.body(), "$.measurements[0].statistic")).isEqualTo("COUNT");
        return JsonPath.<Number>read(meter.body(), "$.measurements[0].value")
                .doubleValue();
    }

    private static HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
