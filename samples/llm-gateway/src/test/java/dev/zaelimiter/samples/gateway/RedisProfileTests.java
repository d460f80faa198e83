package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.redis.RedisServer;
import dev.zaelimiter.store.redis.RedisStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's {@code redis} profile, on a real redis-server: the limits and buckets live in Redis. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("redis")
class RedisProfileTests {

    private static final RedisServer SERVER = RedisServer.get();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", SERVER::port);
    }

    @LocalServerPort
    int port;

    @Autowired
    LimiterStore store;

    @Test
    void aChatRequestIsDecidedOnRedis() throws Exception {
        assertThat(store).isInstanceOf(RedisStore.class);
        assertThat(SERVER.command("EXISTS", "zae:default#R#gpt-4o")).as("the declarations are in Redis")
                .isEqualTo(":1");

        HttpResponse<String> ok = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/v1/chat/completions"))
                .header("X-API-Key", "sk-hobby-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"Say hello\",\"max_tokens\":100}")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("RateLimit")).hasValue("\"requests\";r=9");
        assertThat(SERVER.command("EXISTS", "zae:default#E#key-hobby#B#gpt-4o")).isEqualTo(":1");
    }
}
