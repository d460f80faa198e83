package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.spring.RateLimited;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configuration of {@link RateLimited}: an advisor applying {@link RateLimitedInterceptor} to the annotated
 * methods of every bean. Active when AspectJ is on the class path (as with {@code spring-boot-starter-aop}), a
 * {@link RateLimiter} bean exists, and {@code zae.limiter.aop.enabled} is not {@code false}. Each bean backs off when
 * the application defines its own. Like {@code @EnableCaching}, it registers Spring's infrastructure auto-proxy
 * creator when none is registered; Spring Boot's {@code AopAutoConfiguration} upgrades it as usual.
 *
 * <p>The beans are infrastructure beans created early, while the proxy machinery starts; the interceptor therefore
 * looks the {@link RateLimiter} up on the first call rather than when it is created, and the advisor reads its order
 * from the environment rather than from the properties bean.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
@ConditionalOnBean(RateLimiter.class)
@ConditionalOnBooleanProperty(name = "zae.limiter.aop.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZaeLimiterAopProperties.class)
@Import(ZaeLimiterAopAutoConfiguration.AutoProxyRegistrar.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class ZaeLimiterAopAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedOperationSource rateLimitedOperationSource() {
        return new RateLimitedOperationSource();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedInterceptor rateLimitedInterceptor(ObjectProvider<RateLimiter> rateLimiter,
            RateLimitedOperationSource rateLimitedOperationSource, BeanFactory beanFactory) {
        return new RateLimitedInterceptor(rateLimiter::getObject, rateLimitedOperationSource, beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedAdvisor rateLimitedAdvisor(RateLimitedInterceptor rateLimitedInterceptor,
            Environment environment) {
        RateLimitedAdvisor advisor = new RateLimitedAdvisor(rateLimitedInterceptor);
        advisor.setOrder(Binder.get(environment).bind("zae.limiter.aop.order", Integer.class)
                .orElse(RateLimitedAdvisor.DEFAULT_ORDER));
        return advisor;
    }

    /** Registers the infrastructure auto-proxy creator unless a (possibly more capable) one is registered. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
