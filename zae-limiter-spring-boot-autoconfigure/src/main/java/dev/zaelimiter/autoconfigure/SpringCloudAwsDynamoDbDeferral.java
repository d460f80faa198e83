package dev.zaelimiter.autoconfigure;

import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;

/**
 * Lets an application that adds only the starter start without any AWS configuration. Spring Cloud AWS's DynamoDB
 * auto-configuration (which the starter brings for DynamoDB users) builds its {@code DynamoDbClient} eagerly, and
 * building it fails without an AWS region. When zae-limiter does not use DynamoDB (store {@code memory}, or
 * {@code auto} without {@code zae.limiter.dynamodb.table}), this makes the beans of that auto-configuration lazy:
 * nothing is switched off, an application that injects the client or {@code DynamoDbTemplate} still gets it (and
 * Spring Cloud AWS's own error if it has no region), but an application that never asks for them needs no region.
 */
final class SpringCloudAwsDynamoDbDeferral implements BeanFactoryPostProcessor, EnvironmentAware {

    private static final String PACKAGE = "io.awspring.cloud.autoconfigure.dynamodb.";

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        if (LimiterStoreConfigurations.dynamoDbChosen(environment)) {
            return;
        }
        for (String name : beanFactory.getBeanDefinitionNames()) {
            BeanDefinition definition = beanFactory.getBeanDefinition(name);
            if (definition instanceof AnnotatedBeanDefinition annotated) {
                MethodMetadata factoryMethod = annotated.getFactoryMethodMetadata();
                if (factoryMethod != null && factoryMethod.getDeclaringClassName().startsWith(PACKAGE)) {
                    definition.setLazyInit(true);
                }
            }
        }
    }
}
