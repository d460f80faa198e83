package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring Boot 4's HTTP service clients ({@code @ImportHttpServices}) guarded by a target that names their group, with
 * no interceptor written by hand, against a real local HTTP server.
 */
class HttpServiceGroupGuardsTests {

    interface ProviderApi {
        @GetExchange("/v1/chat")
        String chat();
    }

    interface OtherApi {
        @GetExchange("/v1/other")
        String other();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "provider", types = ProviderApi.class)
    @ImportHttpServices(group = "other", types = OtherApi.class)
    static class Clients {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    private final FakeUpstream upstream = new FakeUpstream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, HttpServiceClientPropertiesAutoConfiguration.class,
                    RestClientAutoConfiguration.class, HttpServiceClientAutoConfiguration.class))
            .withUserConfiguration(Clients.class)
            .withPropertyValues("spring.http.serviceclient.provider.base-url=" + upstream.url(),
                    "spring.http.serviceclient.other.base-url=" + upstream.url(),
                    "zae.limiter.resources.provider.limits.rpm.capacity=100",
                    "zae.limiter.client.targets.openai.resource=provider",
                    "zae.limiter.client.targets.openai.entity.id=shared",
                    "zae.limiter.client.targets.openai.consume.rpm=1");

    HttpServiceGroupGuardsTests() throws IOException {
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Test
    void theGroupsClientCallsThroughTheTargetAndPausesOnA429() {
        runner.withPropertyValues("zae.limiter.client.targets.openai.groups=provider").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            MutableClock clock = context.getBean(MutableClock.class);
            ProviderApi provider = context.getBean(ProviderApi.class);

            assertThat(provider.chat()).isEqualTo("ok");
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 99L);

            upstream.then(429, Map.of("Retry-After", "20"));
            Instant now = clock.instant();
            assertThatThrownBy(provider::chat).isInstanceOfSatisfying(UpstreamRateLimitedException.class,
                    e -> assertThat(e.pausedUntil()).isEqualTo(now.plusSeconds(20)));
            assertThatThrownBy(provider::chat).as("held back without reaching the upstream")
                    .isInstanceOf(ResourcePausedException.class);
            assertThat(upstream.requests()).isEqualTo(2);

            clock.advance(Duration.ofSeconds(20));
            assertThat(provider.chat()).isEqualTo("ok");
        });
    }

    @Test
    void aGroupNoTargetNamesIsLeftAlone() {
        runner.withPropertyValues("zae.limiter.client.targets.openai.groups=provider").run(context -> {
            assertThat(context.getBean(OtherApi.class).other()).isEqualTo("ok");
            assertThat(context.getBean(RateLimiter.class).available("shared", "provider")).containsEntry("rpm", 100L);
        });
    }

    @Test
    void withoutGroupsTheClientsAreNotGuarded() {
        runner.run(context -> {
            assertThat(context.getBean(ProviderApi.class).chat()).isEqualTo("ok");
            assertThat(context.getBean(RateLimiter.class).available("shared", "provider")).containsEntry("rpm", 100L);
        });
    }

    @Test
    void anUnknownGroupFailsStartupNamingTheProperty() {
        runner.withPropertyValues("zae.limiter.client.targets.openai.groups=provder").run(context ->
                assertThat(context).getFailure().isInstanceOfSatisfying(InvalidDeclarationException.class,
                        e -> {
                            assertThat(e.property()).isEqualTo("zae.limiter.client.targets.openai.groups");
                            assertThat(e.getMessage()).contains("'provder'").contains("other").contains("provider");
                        }));
    }
}
