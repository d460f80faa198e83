package dev.zaelimiter.autoconfigure.aop;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of {@code @RateLimited} under {@code zae.limiter.aop}. */
@ConfigurationProperties("zae.limiter.aop")
public class ZaeLimiterAopProperties {

    /** Whether methods annotated with @RateLimited are rate limited. */
    private boolean enabled = true;

    /**
     * Order of the @RateLimited advice among the other advice of a method; lower values run first (outside). The
     * default runs outside @Transactional and @Cacheable.
     */
    private int order = RateLimitedAdvisor.DEFAULT_ORDER;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }
}
