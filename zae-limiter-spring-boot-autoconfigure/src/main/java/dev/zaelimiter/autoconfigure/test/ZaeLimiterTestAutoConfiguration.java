package dev.zaelimiter.autoconfigure.test;

import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * The beans of {@link AutoConfigureZaeLimiterTest}, ahead of the starter's: a {@link ZaeLimiterTestStore} in place of
 * the in-memory or DynamoDB store, a {@link ZaeLimiterTestClock} as the limiter's clock, and the
 * {@link ZaeLimiterTestSupport} that drives both. Each backs off when the test defines its own. Not in the
 * auto-configuration imports: only the annotation brings it in.
 */
@AutoConfiguration(before = ZaeLimiterAutoConfiguration.class)
public class ZaeLimiterTestAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LimiterStore.class)
    public ZaeLimiterTestStore zaeLimiterTestStore() {
        return new ZaeLimiterTestStore();
    }

    @Bean
    @ConditionalOnMissingBean(Clock.class)
    public ZaeLimiterTestClock zaeLimiterTestClock() {
        return new ZaeLimiterTestClock();
    }

    @Bean
    @ConditionalOnMissingBean
    public ZaeLimiterTestSupport zaeLimiterTestSupport(ObjectProvider<ZaeLimiterTestClock> clock,
            ObjectProvider<ZaeLimiterTestStore> store) {
        return new ZaeLimiterTestSupport(clock.getIfUnique(), store.getIfUnique());
    }
}
