package dev.zaelimiter.autoconfigure.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Micrometer metrics of zae-limiter, under {@code zae.limiter.metrics}. */
@ConfigurationProperties("zae.limiter.metrics")
public class ZaeLimiterMetricsProperties {

    /** Whether to record rate limiter metrics when Micrometer and a MeterRegistry are present. */
    private boolean enabled = true;

    /**
     * Whether to tag the decision and soft-overage counters with the entity id. Off by default: every entity becomes its own time
     * series, which can overwhelm a metrics backend when entities are users or API keys.
     */
    private boolean entityTag = false;

    /** Whether to time every store call, by decorating the LimiterStore bean. */
    private boolean storeLatency = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isEntityTag() {
        return entityTag;
    }

    public void setEntityTag(boolean entityTag) {
        this.entityTag = entityTag;
    }

    public boolean isStoreLatency() {
        return storeLatency;
    }

    public void setStoreLatency(boolean storeLatency) {
        this.storeLatency = storeLatency;
    }
}
