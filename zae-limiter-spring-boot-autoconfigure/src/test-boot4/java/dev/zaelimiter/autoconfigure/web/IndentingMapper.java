package dev.zaelimiter.autoconfigure.web;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** An application JSON mapper of Spring Boot 4's kind (Jackson 3) that indents its output. */
@Configuration(proxyBeanMethods = false)
class IndentingMapper {

    @Bean
    JsonMapper jsonMapper() {
        return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    }
}
