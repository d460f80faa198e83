package dev.zaelimiter.autoconfigure.test;

import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Resets the limiter after every test method of a test whose application context has a
 * {@link ZaeLimiterTestSupport} (that is, one annotated {@link AutoConfigureZaeLimiterTest}), so that no test sees
 * the buckets, pauses or clock another one left. Registered in {@code META-INF/spring.factories}.
 */
public class ZaeLimiterTestExecutionListener implements TestExecutionListener, Ordered {

    @Override
    public void afterTestMethod(TestContext testContext) {
        if (testContext.hasApplicationContext()) {
            testContext.getApplicationContext().getBeanProvider(ZaeLimiterTestSupport.class)
                    .ifAvailable(ZaeLimiterTestSupport::reset);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
