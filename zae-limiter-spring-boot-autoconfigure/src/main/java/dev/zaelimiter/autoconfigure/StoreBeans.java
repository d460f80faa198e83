package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import java.time.Duration;
import java.util.function.Consumer;

/** What every shared store's bean definition does alike: its name, its deadline and its hand-over to the set-up. */
final class StoreBeans {

    /** The name of the store bean. */
    static final String STORE_BEAN = "limiterStore";

    private StoreBeans() {
    }

    /** Gives the builder {@code zae.limiter.store-timeout}, or names the property when the store refuses it. */
    static void requestTimeout(ZaeLimiterProperties properties, Consumer<Duration> builder) {
        try {
            builder.accept(properties.getStoreTimeout());
        } catch (ValidationException e) {
            throw new InvalidDeclarationException("zae.limiter.store-timeout", "is '" + properties.getStoreTimeout()
                    + "'; a deadline is more than zero, such as 500ms");
        }
    }

    /**
     * Hands {@code store} to the application's set-up when there is one, and has the set-up closed before the store
     * (it uses the store until then).
     *
     * @return the set-up, or {@code null}
     */
    static StoreSetup attachSetup(LimiterStore store, ObjectProvider<StoreSetup> setup,
            ConfigurableListableBeanFactory beanFactory) {
        StoreSetup deferred = setup.getIfUnique();
        if (deferred != null) {
            deferred.manages(store);
            for (String setupBean : beanFactory.getBeanNamesForType(StoreSetup.class, false, false)) {
                beanFactory.registerDependentBean(STORE_BEAN, setupBean);
            }
        }
        return deferred;
    }
}
